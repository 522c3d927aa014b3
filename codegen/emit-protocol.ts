import type { Family } from './families.js';
import { generatedHeader } from './header.js';
import { checkedTable, literal } from './tables.js';

interface ProtocolTable {
  protocolVersion: string;
  specVersion: string;
  headers: { version: string | null; extensions: string };
  versionQueryParameter: string | null;
  mediaTypes: { json: string; a2aJson: string | null; eventStream: string };
  wellKnownAgentCardPath: string;
}

/** `protocol.ts`: the version a family describes and the transport names around every method. */
export function emitProtocol(specDir: string, family: Family): string {
  const table = checkedTable<ProtocolTable>(specDir, family, 'protocol.json');
  if (!table.specVersion.startsWith(`${table.protocolVersion}.`)) {
    throw new Error(
      `${table.file.displayPath}: specVersion ${table.specVersion} is not a release of protocolVersion ${table.protocolVersion}`,
    );
  }
  return [
    generatedHeader(`spec/${family.id}/protocol.json`),
    '/** The protocol version (Major.Minor), as AgentInterface.protocolVersion and A2A-Version write it. */',
    `export const PROTOCOL_VERSION = ${literal(table.protocolVersion)};`,
    '',
    '/** The specification release this family was written from. */',
    `export const SPEC_VERSION = ${literal(table.specVersion)};`,
    '',
    '/** Service parameters sent as HTTP headers, in their canonical spelling (names compare case-insensitively). */',
    `export const HEADERS = ${literal(table.headers)} as const;`,
    '',
    '/** The query parameter that may carry the version instead of the header. */',
    `export const VERSION_QUERY_PARAMETER = ${literal(table.versionQueryParameter)};`,
    '',
    `export const MEDIA_TYPES = ${literal(table.mediaTypes)} as const;`,
    '',
    "/** Where an agent's public card is served, relative to its origin. */",
    `export const WELL_KNOWN_AGENT_CARD_PATH = ${literal(table.wellKnownAgentCardPath)};`,
    '',
    '/** Whether a version string names this protocol version: Major.Minor, or Major.Minor.Patch of it. */',
    'export function isThisProtocolVersion(version: string): boolean {',
    '  return version === PROTOCOL_VERSION || (version.startsWith(`${PROTOCOL_VERSION}.`) && /^\\d+$/.test(version.slice(PROTOCOL_VERSION.length + 1)));',
    '}',
    '',
  ].join('\n');
}
