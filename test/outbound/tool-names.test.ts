import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assignToolNames,
  baseToolName,
  normaliseToolName,
  toolHash,
  toolKey,
  TOOL_NAME_PATTERN,
  type ToolNameRequest,
} from '../../src/outbound/tool-names.js';

const RUNS = Number(process.env['FC_RUNS'] ?? 200);
const SEED = process.env['FC_SEED'] === undefined ? {} : { seed: Number(process.env['FC_SEED']) };

/** Names and ids as people and cards write them: any text, often short and overlapping. */
const text = fc.oneof(
  fc.string({ minLength: 0, maxLength: 80, unit: 'grapheme' }),
  fc.constantFrom('chat', 'a', 'b', 'remote', 'x'.repeat(70), 'Weather Bot', 'météo'),
);
const request = fc.record({
  connectionId: fc.constantFrom('out-00000000-001', 'out-00000000-002', 'out-00000000-003', 'out-ffffffff-fff'),
  connectionName: text,
  skillId: fc.oneof(text, fc.constantFrom('chat', 'summarize')),
  rank: fc.constantFrom('2026-01-01T00:00:00.000Z', '2026-01-02T00:00:00.000Z'),
});
/** One request per (connection, skill), as the registry builds them. */
const requests = fc.uniqueArray(request, { maxLength: 25, selector: (entry) => toolKey(entry.connectionId, entry.skillId) });

describe('tool names: examples', () => {
  it('are a2a__<connection-name>__<skill-id> with every other character replaced by _', () => {
    expect(baseToolName('weather', 'forecast')).toBe('a2a__weather__forecast');
    expect(baseToolName('Weather Bot!', 'summarize.v2')).toBe('a2a__Weather_Bot___summarize_v2');
    expect(baseToolName('météo', 'chat')).toBe('a2a__m_t_o__chat');
    expect(normaliseToolName('a😀b')).toBe('a_b');
    expect(normaliseToolName('keep-these_AZaz09')).toBe('keep-these_AZaz09');
  });

  it('are cut to 64 characters', () => {
    const name = baseToolName('x'.repeat(100), 'chat');
    expect(name).toHaveLength(64);
    expect(name).toBe(`a2a__${'x'.repeat(59)}`);
  });

  it('keep the plain name for the earliest connection and give later ones a 6-hex hash of their id and skill', () => {
    const older: ToolNameRequest = {
      connectionId: 'out-bbbbbbbb-bbb',
      connectionName: 'remote',
      skillId: 'chat',
      rank: '2026-01-01T00:00:00.000Z',
    };
    const newer: ToolNameRequest = {
      connectionId: 'out-aaaaaaaa-aaa',
      connectionName: 'remote',
      skillId: 'chat',
      rank: '2026-01-02T00:00:00.000Z',
    };
    const names = assignToolNames([newer, older]);
    expect(names.get(toolKey(older.connectionId, 'chat'))).toBe('a2a__remote__chat');
    expect(names.get(toolKey(newer.connectionId, 'chat'))).toBe(`a2a__remote__chat_${toolHash(newer.connectionId, 'chat').slice(0, 6)}`);
  });

  it('cut the base so that the hash still fits in 64 characters', () => {
    const long = 'y'.repeat(80);
    const first: ToolNameRequest = { connectionId: 'out-1', connectionName: long, skillId: 'chat', rank: '1' };
    const second: ToolNameRequest = { connectionId: 'out-2', connectionName: long, skillId: 'chat', rank: '2' };
    const names = assignToolNames([first, second]);
    const hashed = names.get(toolKey('out-2', 'chat')) ?? '';
    expect(hashed).toHaveLength(64);
    expect(hashed).toBe(`a2a__${'y'.repeat(52)}_${toolHash('out-2', 'chat').slice(0, 6)}`);
    expect(names.get(toolKey('out-1', 'chat'))).toBe(`a2a__${'y'.repeat(59)}`);
  });

  it('are the same whatever distinct names normalise to the same text (chat.v1 and chat_v1)', () => {
    const dotted: ToolNameRequest = { connectionId: 'out-1', connectionName: 'r', skillId: 'chat.v1', rank: '1' };
    const underscored: ToolNameRequest = { connectionId: 'out-1', connectionName: 'r', skillId: 'chat_v1', rank: '1' };
    const names = assignToolNames([dotted, underscored]);
    // Same rank and connection: the skill id decides, and '.' sorts before '_'.
    expect(names.get(toolKey('out-1', 'chat.v1'))).toBe('a2a__r__chat_v1');
    expect(names.get(toolKey('out-1', 'chat_v1'))).toMatch(/^a2a__r__chat_v1_[0-9a-f]{6}$/);
  });
});

describe('tool names: properties', () => {
  it('always match ^[A-Za-z0-9_-]{1,64}$', () => {
    fc.assert(
      fc.property(requests, (entries) => {
        for (const name of assignToolNames(entries).values()) expect(name).toMatch(TOOL_NAME_PATTERN);
      }),
      { numRuns: RUNS, ...SEED },
    );
  });

  it('are unique across the set and name every request', () => {
    fc.assert(
      fc.property(requests, (entries) => {
        const names = assignToolNames(entries);
        expect(names.size).toBe(entries.length);
        expect(new Set(names.values()).size).toBe(entries.length);
      }),
      { numRuns: RUNS, ...SEED },
    );
  });

  it('do not depend on the order of the requests', () => {
    fc.assert(
      fc.property(
        requests.chain((entries) =>
          fc.tuple(fc.constant(entries), fc.shuffledSubarray(entries, { minLength: entries.length, maxLength: entries.length })),
        ),
        ([entries, shuffled]) => {
          expect(assignToolNames(shuffled)).toEqual(assignToolNames(entries));
        },
      ),
      { numRuns: RUNS, ...SEED },
    );
  });

  it('are the base name, or the base cut short plus _ and the start of the hash of connection id and skill id', () => {
    fc.assert(
      fc.property(requests, (entries) => {
        const names = assignToolNames(entries);
        for (const entry of entries) {
          const base = baseToolName(entry.connectionName, entry.skillId);
          const name = names.get(toolKey(entry.connectionId, entry.skillId)) ?? '';
          if (name === base) continue;
          const suffix = name.slice(name.lastIndexOf('_') + 1);
          expect(suffix.length).toBeGreaterThanOrEqual(6);
          expect(toolHash(entry.connectionId, entry.skillId).startsWith(suffix)).toBe(true);
          expect(name).toBe(`${base.slice(0, 64 - suffix.length - 1)}_${suffix}`);
        }
      }),
      { numRuns: RUNS, ...SEED },
    );
  });

  it('keep every base name when no two requests share one', () => {
    fc.assert(
      fc.property(requests, (entries) => {
        const bases = entries.map((entry) => baseToolName(entry.connectionName, entry.skillId));
        fc.pre(new Set(bases).size === bases.length);
        const names = assignToolNames(entries);
        entries.forEach((entry, index) => expect(names.get(toolKey(entry.connectionId, entry.skillId))).toBe(bases[index]));
      }),
      { numRuns: RUNS, ...SEED },
    );
  });

  it('keep the names of the first tools when a newer connection is added', () => {
    fc.assert(
      fc.property(requests, request, (entries, extra) => {
        const later = { ...extra, connectionId: 'out-zzzzzzzz-zzz', rank: '9999-12-31T00:00:00.000Z' };
        const before = assignToolNames(entries);
        const after = assignToolNames([...entries, later]);
        for (const [key, name] of before) expect(after.get(key)).toBe(name);
      }),
      { numRuns: RUNS, ...SEED },
    );
  });
});
