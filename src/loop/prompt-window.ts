import type { LanguageModelV4Message, LanguageModelV4Prompt } from "@ai-sdk/provider";
import { fitContext, messageBytes } from "./fit-context.js";
import { isSent, providerMessage, toPrompt } from "./to-prompt.js";
import type { TranscriptMessage } from "./transcript-message.js";

/**
 * The prompt of one run's transcript, kept from turn to turn. A run only appends to its
 * transcript, so each turn converts and measures just the new messages; while the whole
 * transcript fits the context budget the prompt is the kept list (a copy, since a provider may
 * hold on to what it was sent). Over budget, or given a transcript that is not an extension
 * of the last one, it is `toPrompt(fitContext(messages, budget))`, which it always equals.
 *
 * @example
 * ```ts
 * const promptWindow = new PromptWindow(400_000);
 * await model.doStream({ prompt: promptWindow.prompt(messages), ... });
 * ```
 */
export class PromptWindow {
  private readonly sent: LanguageModelV4Message[] = [];
  private count = 0;
  private last: TranscriptMessage | undefined;
  private bytes = 0;

  constructor(private readonly budgetBytes: number) {}

  /** The prompt for `messages`, fitted to the budget. */
  prompt(messages: readonly TranscriptMessage[]): LanguageModelV4Prompt {
    if (messages.length < this.count || messages[this.count - 1] !== this.last) this.reset();
    for (let i = this.count; i < messages.length; i += 1) {
      const message = messages[i] as TranscriptMessage;
      this.bytes += messageBytes(message);
      if (isSent(message)) this.sent.push(providerMessage(message));
    }
    this.count = messages.length;
    this.last = messages[messages.length - 1];
    if (this.bytes <= this.budgetBytes) return this.sent.slice();
    return toPrompt(fitContext(messages, this.budgetBytes));
  }

  private reset(): void {
    this.sent.length = 0;
    this.count = 0;
    this.last = undefined;
    this.bytes = 0;
  }
}
