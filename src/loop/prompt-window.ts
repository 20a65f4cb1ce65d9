import type { LanguageModelV4Message, LanguageModelV4Prompt } from "@ai-sdk/provider";
import { elisionMarker, messageBytes } from "./fit-context.js";
import { isSent, providerMessage } from "./to-prompt.js";
import type { TranscriptMessage, TranscriptToolResult } from "./transcript-message.js";

/**
 * The prompt of one run's transcript, kept from turn to turn. A run only appends to its
 * transcript, so each turn converts and measures just the new messages. Over the context budget
 * it elides tool outputs oldest first, as `fitContext` does, and goes on from where the
 * last turn stopped: with a longer transcript every output elided before is elided again, so
 * only the newly needed ones are. Its prompt always equals `toPrompt(fitContext(messages,
 * budget))`; given a transcript that is not an extension of the last one, it starts afresh.
 *
 * @example
 * ```ts
 * declare const model: import("@ai-sdk/provider").LanguageModelV4;
 * declare const messages: readonly import("./transcript-message.js").TranscriptMessage[];
 * const promptWindow = new PromptWindow(400_000);
 * await model.doStream({ prompt: promptWindow.prompt(messages) });
 * ```
 */
export class PromptWindow {
  /** The prompt so far, with elided tool messages in place of the originals. */
  private readonly sent: LanguageModelV4Message[] = [];
  /** For each transcript message, its index in `sent`, or -1 when it is not sent. */
  private readonly sentAt: number[] = [];
  private count = 0;
  private last: TranscriptMessage | undefined;
  /** What the transcript counts against the budget, before any elision. */
  private bytes = 0;
  /** What the elisions so far took off `bytes`. */
  private saved = 0;
  private latestTool = -1;
  /** Where elision goes on: every result before it is decided for good. */
  private scanMessage = 0;
  private scanResult = 0;
  /** The results of `scanMessage` as fitted so far, when the scan stopped inside it. */
  private boundary: TranscriptToolResult[] | undefined;

  constructor(private readonly budgetBytes: number) {}

  /** The prompt for `messages`, fitted to the budget. */
  prompt(messages: readonly TranscriptMessage[]): LanguageModelV4Prompt {
    if (messages.length < this.count || messages[this.count - 1] !== this.last) this.reset();
    for (let i = this.count; i < messages.length; i += 1) {
      const message = messages[i] as TranscriptMessage;
      this.bytes += messageBytes(message);
      if (message.role === "tool") this.latestTool = i;
      if (isSent(message)) {
        this.sentAt.push(this.sent.length);
        this.sent.push(providerMessage(message));
      } else this.sentAt.push(-1);
    }
    this.count = messages.length;
    this.last = messages[messages.length - 1];
    if (this.bytes - this.saved > this.budgetBytes) this.elide(messages);
    return this.sent.slice();
  }

  private elide(messages: readonly TranscriptMessage[]): void {
    let total = this.bytes - this.saved;
    while (total > this.budgetBytes && this.scanMessage < this.latestTool) {
      const message = messages[this.scanMessage] as TranscriptMessage;
      if (message.role !== "tool") {
        this.scanMessage += 1;
        continue;
      }
      const fitted = this.boundary ?? [...message.results];
      let r = this.scanResult;
      for (; r < message.results.length && total > this.budgetBytes; r += 1) {
        const result = message.results[r] as TranscriptToolResult;
        const size = Buffer.byteLength(result.text);
        const marker = elisionMarker(size);
        if (size <= marker.length) continue;
        const cut = size - Buffer.byteLength(marker);
        total -= cut;
        this.saved += cut;
        fitted[r] = { ...result, text: marker };
      }
      this.sent[this.sentAt[this.scanMessage] as number] = providerMessage({
        role: "tool",
        results: fitted,
      });
      if (r < message.results.length) {
        this.scanResult = r;
        this.boundary = fitted;
        return;
      }
      this.scanMessage += 1;
      this.scanResult = 0;
      this.boundary = undefined;
    }
  }

  private reset(): void {
    this.sent.length = 0;
    this.sentAt.length = 0;
    this.count = 0;
    this.last = undefined;
    this.bytes = 0;
    this.saved = 0;
    this.latestTool = -1;
    this.scanMessage = 0;
    this.scanResult = 0;
    this.boundary = undefined;
  }
}
