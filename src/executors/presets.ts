import type { AgentSkill } from '../../generated/a2a/1.0/types.js';
import type { ModelOptions } from '../../generated/control/types.js';
import { echoExecutor } from './echo.js';
import type { AgentExecutor } from './executor.js';
import { TEST_DIRECTIVES_EXTENSION } from './test-directives.js';
import type { WorkerBoard } from './worker.js';

/** A kind of agent an inbound instance can run: its executor and what its card says about it. */
export interface Preset {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly executor: AgentExecutor;
  /** Skills advertised when the instance configures none. */
  readonly skills: readonly AgentSkill[];
  readonly inputModes: readonly string[];
  readonly outputModes: readonly string[];
  /** Extension URIs the preset implements (declared on the card, never required). */
  readonly extensions: readonly string[];
  /** How an instance processes the messages of one session unless it says (SessionOrder); default concurrent. */
  readonly sessionOrder?: 'fifo' | 'concurrent';
  /** Why this instance's configuration cannot run on the preset, if it cannot. */
  readonly validate?: (instance: PresetInstance) => string | undefined;
  /**
   * What the card says when it follows something outside the hub (a relay follows its remote);
   * undefined members fall back to the fields above. Read whenever the instance table is rebuilt.
   */
  readonly profile?: (instance: PresetInstance) => PresetProfile | undefined;
  /** For a preset whose tasks an external worker does (worker.ts): the board of an instance, where its worker connects. */
  readonly workerOf?: (instanceId: string) => WorkerBoard;
  /** Ends what the preset holds open (a worker's feed) when its hub shuts down, after the tasks' grace period. */
  readonly close?: () => void;
}

/** The part of an inbound instance's configuration a preset may look at. */
export interface PresetInstance {
  readonly id: string;
  /** The outbound connection a relay instance forwards to. */
  readonly relayTo?: string;
  /** The model endpoint of a standard instance. */
  readonly model?: ModelOptions;
  readonly instructions?: string;
  readonly tools?: readonly string[];
  readonly maxToolRounds?: number;
  readonly sessionOrder?: 'fifo' | 'concurrent';
}

export interface PresetProfile {
  readonly skills?: readonly AgentSkill[];
  readonly inputModes?: readonly string[];
  readonly outputModes?: readonly string[];
  readonly extensions?: readonly string[];
}

export const DEFAULT_PRESET = 'echo';

const BUILT_IN: readonly Preset[] = [
  {
    id: 'echo',
    name: 'Echo',
    description: 'Replies with the text it receives, streamed in chunks; obeys the a2a-hub test directives.',
    executor: echoExecutor,
    skills: [
      {
        id: 'chat',
        name: 'chat',
        description: 'Echoes the message back as an artifact.',
        tags: ['echo', 'test'],
        examples: ['hello', '::input-required', '::slow 5'],
      },
    ],
    // Echo takes anything: it names parts it cannot read rather than refusing them.
    inputModes: ['text/plain', 'application/json', '*/*'],
    outputModes: ['text/plain'],
    extensions: [TEST_DIRECTIVES_EXTENSION],
  },
];

/** The presets an instance can be created with; custom executors register here too. */
export class PresetRegistry {
  readonly #presets = new Map<string, Preset>(BUILT_IN.map((preset) => [preset.id, preset]));

  register(preset: Preset): void {
    this.#presets.set(preset.id, preset);
  }

  get(id: string): Preset | undefined {
    return this.#presets.get(id);
  }

  list(): Preset[] {
    return [...this.#presets.values()];
  }
}
