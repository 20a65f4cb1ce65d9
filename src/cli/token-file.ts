import { lstatSync, readFileSync } from "node:fs";
import { DocketError } from "../errors/docket-error.js";

/**
 * An approver's token read from a file only its owner can read (mode 0600 or stricter), so that
 * the token itself never sits in an environment a coding agent's commands inherit: only the
 * file's path does (`DOCKET_TOKEN_FILE`). Keep the file in docket's own folder
 * (`~/.config/docket/`), which docket hides from every tool it governs. Refused, with the fix
 * in words, when the file is missing, not a regular file, readable by others, or empty.
 *
 * @example
 * ```ts
 * import { homedir } from "node:os";
 * const token = readTokenFile(`${homedir()}/.config/docket/token`); // "s3cret…"
 * ```
 */
export function readTokenFile(file: string): string {
  let mode: number;
  try {
    const stat = lstatSync(file);
    if (!stat.isFile()) {
      throw new DocketError(
        "token_file_invalid",
        `DOCKET_TOKEN_FILE ${file} is not a regular file.`,
      );
    }
    mode = stat.mode & 0o777;
  } catch (error) {
    if (error instanceof DocketError) throw error;
    throw new DocketError("token_file_invalid", `DOCKET_TOKEN_FILE ${file} cannot be read.`, {
      cause: error,
    });
  }
  if ((mode & 0o077) !== 0) {
    throw new DocketError(
      "token_file_invalid",
      `DOCKET_TOKEN_FILE ${file} can be read by others (mode ${mode.toString(8).padStart(4, "0")}): chmod 600 ${file}.`,
    );
  }
  const token = readFileSync(file, "utf8").trim();
  if (token === "") {
    throw new DocketError("token_file_invalid", `DOCKET_TOKEN_FILE ${file} is empty.`);
  }
  return token;
}
