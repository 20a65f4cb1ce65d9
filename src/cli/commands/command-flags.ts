/**
 * `--config` and `--store`, worded alike on every command that reads docket.yaml or opens the
 * store. A module of their own, so a command that shows them loads no store.
 *
 * @example
 * ```ts
 * import { Command } from "commander";
 * const command = new Command("sessions");
 * command.option("--config <file>", CONFIG_FLAG_HELP).option("--store <url>", STORE_FLAG_HELP);
 * ```
 */
export const CONFIG_FLAG_HELP =
  "docket.yaml (default: DOCKET_CONFIG, else the first docket.yaml from here up)";
/** See {@link CONFIG_FLAG_HELP}. */
export const STORE_FLAG_HELP =
  "the store (default: DOCKET_STORE, else docket.yaml's store:, else .docket/docket.db beside it)";
