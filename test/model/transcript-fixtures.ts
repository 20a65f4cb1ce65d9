import type { TranscriptMessage, TranscriptToolCall } from "../../src/loop/transcript-message.js";

/** How docket's test conversation opens. */
export const OPENING: readonly TranscriptMessage[] = [
  { role: "system", text: "You are docket's test agent." },
  { role: "user", text: "Weather in Oslo, then read the notes." },
];

/**
 * The transcript after the model's first turn: its two calls answered, the first ok, the second
 * failed because the model's arguments were not JSON. Ids come from the provider under test.
 *
 * @example
 * ```ts
 * const prompt = toPrompt(afterFirstTurn(first.turn.toolCalls));
 * ```
 */
export function afterFirstTurn(first: readonly TranscriptToolCall[]): TranscriptMessage[] {
  const [weather, garbled] = first;
  if (!weather || !garbled) throw new Error("afterFirstTurn() needs the first turn's two calls");
  return [
    ...OPENING,
    { role: "assistant", text: "Checking the weather.", toolCalls: first },
    {
      role: "tool",
      results: [
        {
          callId: weather.id,
          name: weather.name,
          status: "ok",
          text: "14 °C, light rain",
          isError: false,
        },
        {
          callId: garbled.id,
          name: garbled.name,
          status: "failed",
          reason: "invalid_arguments",
          text: "The arguments were not valid JSON.",
          isError: true,
        },
      ],
    },
  ];
}

/**
 * The whole exchange after the second turn: its one call refused by policy, then the user
 * speaking again, so a tool message is directly followed by a user message.
 *
 * @example
 * ```ts
 * const prompt = toPrompt(afterSecondTurn(first.turn.toolCalls, second.turn.toolCalls));
 * ```
 */
export function afterSecondTurn(
  first: readonly TranscriptToolCall[],
  second: readonly TranscriptToolCall[],
): TranscriptMessage[] {
  const [read] = second;
  if (!read) throw new Error("afterSecondTurn() needs the second turn's call");
  return [
    ...afterFirstTurn(first),
    { role: "assistant", text: "", toolCalls: second },
    {
      role: "tool",
      results: [
        {
          callId: read.id,
          name: read.name,
          status: "refused",
          reason: "policy",
          text: "Refused: reading notes/ is not allowed.",
          isError: true,
        },
      ],
    },
    { role: "user", text: "Fine, just summarise." },
  ];
}
