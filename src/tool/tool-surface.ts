/** A menu entry as the model is sent it: name, description, input schema. */
export interface MenuEntry {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema: unknown;
}

/** What one entry of the menu costs. */
export interface EntryCost {
  readonly name: string;
  readonly bytes: number;
  readonly tokens: number;
}

/** What the system prompt and the tool menu cost on every model request. */
export interface SurfaceCost {
  readonly systemTokens: number;
  readonly menuBytes: number;
  readonly menuTokens: number;
  /** System prompt plus menu. */
  readonly tokens: number;
  readonly tools: readonly EntryCost[];
}

/**
 * An estimate of the tokens a text costs: one per four UTF-8 bytes, rounded up. Tokenizers
 * differ by provider and none runs offline here; for English prose and JSON schemas the
 * common ones land within about a quarter of this figure. Documented in docs/observability.md.
 *
 * @example
 * ```ts
 * estimateTokens("Read a file."); // 3
 * ```
 */
export function estimateTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text) / 4);
}

/**
 * The text of a menu entry as providers serialise it (name, description, JSON Schema).
 *
 * @example
 * ```ts
 * entryText({ name: "echo", description: "Repeat.", inputSchema: { type: "object" } });
 * ```
 */
export function entryText(entry: MenuEntry): string {
  return JSON.stringify({
    name: entry.name,
    description: entry.description ?? "",
    input_schema: entry.inputSchema ?? {},
  });
}

/**
 * The cost of the tool surface: the system prompt and every menu entry, in bytes and estimated
 * tokens. The loop charges the menu's bytes to the context budget and puts the tokens on each
 * `chat` span; `docket tools` prints them.
 *
 * @example
 * ```ts
 * surfaceCost([{ name: "echo", description: "Repeat.", inputSchema: {} }], "Be brief.").tokens;
 * ```
 */
export function surfaceCost(menu: readonly MenuEntry[], system = ""): SurfaceCost {
  const tools = menu.map((entry) => {
    const bytes = Buffer.byteLength(entryText(entry));
    return { name: entry.name, bytes, tokens: Math.ceil(bytes / 4) };
  });
  const menuBytes = tools.reduce((n, t) => n + t.bytes, 0);
  const menuTokens = Math.ceil(menuBytes / 4);
  const systemTokens = estimateTokens(system);
  return { systemTokens, menuBytes, menuTokens, tokens: systemTokens + menuTokens, tools };
}
