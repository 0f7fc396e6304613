// Public API of tabloop. The playground exposes it as `window.tabloop`; the ES module
// `tabloop.js` (next to `tabloop_bg.wasm`) exports the same names after `await init()`.

export type Permission = 'allow' | 'ask' | 'deny';

export interface ProviderOptions {
  /** 'local' runs a model in the tab (default); the others call an API with a key. */
  kind?: 'local' | 'openai' | 'anthropic';
  /** API root, e.g. 'https://api.openai.com/v1'; for 'local', a GGUF URL. */
  baseUrl?: string;
  /** Sent only in the provider's auth header; never written to the event log or exports. */
  apiKey?: string;
  model?: string;
}

export interface BudgetOptions {
  maxSteps?: number;
  maxToolCalls?: number;
  maxInputTokens?: number;
  maxOutputTokens?: number;
  maxCostUsd?: number;
  /** Active wall-clock time; time while the tab is hidden or closed is not charged. */
  maxWallMs?: number;
}

export interface AgentOptions {
  /** An existing session id is resumed (its stored configuration wins). */
  session?: string;
  provider?: ProviderOptions;
  budget?: BudgetOptions;
  /** Tool names: built-ins 'http_fetch', 'vfs', 'eval', 'finish', 'todo', and registered ones. */
  tools?: string[];
  permissions?: Record<string, Permission>;
  system?: string;
  /** USD per million tokens, for maxCostUsd. */
  price?: { input_per_mtok: number; output_per_mtok: number; cached_input_per_mtok: number };
  contextWindow?: number;
  maxOutputTokens?: number;
  /** A final answer is accepted only after the finish tool's verifier passed. */
  requireFinish?: boolean;
}

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments; calls that do not match it are never executed. */
  parameters: object;
  execute: (args: any, ctx: { signal: AbortSignal; callId: string; session: string }) => Promise<unknown> | unknown;
  permission?: Permission;
  idempotent?: boolean;
  parallelSafe?: boolean;
  timeoutMs?: number;
}

export type StopReason =
  | 'completed' | 'verified_finish' | 'budget_exhausted' | 'no_progress' | 'consecutive_errors'
  | 'output_limit' | 'cancelled' | 'needs_human' | 'fatal_error';

export interface Outcome {
  stopReason: StopReason;
  /** Which budget, detector, count or human reason, when the stop reason has one. */
  detail: unknown;
  explanation: string;
  finalText: string | null;
  steps: number;
  usage: { inputTokens: number; outputTokens: number; cachedInputTokens: number };
  costUsd: number;
  /** Progress, findings and where it got stuck, when the run did not complete. */
  handoff: { task: string; progress: string[]; findings: string[]; stuck_on: string[]; last_message: string } | null;
}

/** A persisted event: `{ seq, at, type, ...fields }` (see the event log schema). */
export interface EventRecord { seq: number; at: number; type: string; [field: string]: unknown }

export type Status =
  | { type: 'delta'; text: string }
  | { type: 'thinking'; text: string }
  | { type: 'tool_call'; id: string; name: string }
  | { type: 'approval'; callId: string; tool: string; args: unknown; afterInterrupt: boolean }
  | { type: 'finished'; outcome: Outcome }
  | { type: 'storage_failed'; message: string }
  | { type: 'storage_recovered' }
  | { type: 'writer' } | { type: 'follower' }
  | { type: 'failed'; message: string };

export interface Agent {
  readonly session: string;
  /** False while another tab writes this session; this one takes over when that tab closes. */
  readonly isWriter: boolean;
  onEvent(callback: (event: EventRecord) => void): void;
  onStatus(callback: (status: Status) => void): void;
  run(task: string): Promise<Outcome>;
  cancel(): void;
  approve(callId: string): void;
  deny(callId: string, reason?: string): void;
  extendBudget(budget: BudgetOptions): void;
  retryStorage(): void;
  events(): Promise<EventRecord[]>;
  exportJsonl(): Promise<string>;
  /** A new session holding this one up to the end of `step`; resolves to its id. */
  fork(step: number): Promise<string>;
  close(): void;
}

export function createAgent(options?: AgentOptions): Promise<Agent>;
export function registerTool(spec: ToolSpec, options?: { replace?: boolean }): Promise<object>;
export function listSessions(): Promise<{ session: string; records: number; updatedAt: number; title: string }[]>;
export function importSession(jsonl: string): Promise<string>;
export function deleteSession(session: string): Promise<void>;
