/** What `openStore` hands an engine, every default filled in. */
export interface EngineOptions {
  /** The URL to show (password hidden). */
  readonly location: string;
  readonly defaultSession: string;
  readonly readOnly: boolean;
  /** Fail rather than create a new store (read-only commands). */
  readonly mustExist: boolean;
  /** Milliseconds since the epoch; tests pass a fixed clock. */
  readonly clock: () => number;
}
