/**
 * The one error class developers catch from docket. Errors a model sees are values
 * (tool results); errors a developer must fix (a bad tool definition, a policy file that does
 * not load, a store that cannot open) are thrown as a `DocketError` with a stable string code.
 *
 * @example
 * ```ts
 * try {
 *   defineTool({ name: "bad name", description: "x", input: {}, writes: false, handler: () => 1 });
 * } catch (error) {
 *   if (error instanceof DocketError && error.code === "invalid_tool") console.error(error.message);
 * }
 * ```
 */
export class DocketError extends Error {
  /** A stable, machine-readable code such as `invalid_tool` or `policy_load_failed`. */
  readonly code: string;

  constructor(code: string, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "DocketError";
    this.code = code;
  }
}

/**
 * Narrow an unknown value to a `DocketError`, optionally with a given code.
 *
 * @example
 * ```ts
 * if (isDocketError(error, "duplicate_tool")) { ... }
 * ```
 */
export function isDocketError(value: unknown, code?: string): value is DocketError {
  return value instanceof DocketError && (code === undefined || value.code === code);
}
