import { existsSync, statSync } from "node:fs";
import * as path from "node:path";
import { type ApproverDirectory, createApproverDirectory } from "../approval/approver-directory.js";
import { type ConfigLocation, findConfigFile } from "../config/find-config-file.js";
import { layerConfigs } from "../config/layer-configs.js";
import { type DocketConfig, loadConfig } from "../config/load-config.js";
import { type RuntimeConfig, readRuntimeConfig } from "../config/runtime-config.js";
import { userConfigFile } from "../config/user-config-file.js";
import { DocketError } from "../errors/docket-error.js";
import { checkModelString } from "../model/resolve-model.js";
import { resolveStoreUrl } from "../store/resolve-store-url.js";
import { DEFAULT_SQLITE_PATH, parseStoreUrl } from "../store/store-url.js";

/** docket.yaml as a command needs it: the file (if any), its runtime sections, approvers, store URL. */
export interface CliConfig {
  /** The project file over the user file, merged; undefined when there is neither. */
  readonly config: DocketConfig | undefined;
  readonly runtime: RuntimeConfig;
  readonly directory: ApproverDirectory;
  readonly storeUrl: string;
  /** Where the store URL came from: `--store`, `DOCKET_STORE`, a `file:line`, or `default`. */
  readonly storeFrom: string;
  /** The workspace, absolute: `workspace:` against the project file's folder, else that folder. */
  readonly workspace: string;
  /** docket.yaml as loaded (relative to the working directory when below it), if there is one. */
  readonly projectFile: string | undefined;
  /** How docket.yaml was found, if it was. */
  readonly project: ConfigLocation | undefined;
  /** `~/.config/docket/config.yaml` when it exists. */
  readonly userFile: string | undefined;
  /** Each top-level value's (and each approver's and MCP server's) `file:line`. */
  readonly origins: ReadonlyMap<string, string>;
}

/** Options for {@link loadCliConfig}. */
export interface LoadCliConfigOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** Where "using FILE" goes when docket.yaml is not in the working directory. */
  readonly notice?: (line: string) => void;
}

const announced = new Set<string>();

function displayName(file: string, cwd: string): string {
  const relative = path.relative(cwd, file);
  return relative.startsWith("..") || path.isAbsolute(relative) ? file : relative;
}

export { userConfigFile };

/** A relative SQLite path in docket.yaml names a file beside docket.yaml, wherever docket runs. */
function anchorStore(url: string, dir: string): string {
  const target = parseStoreUrl(url);
  if (target.engine !== "sqlite" || target.path === ":memory:" || path.isAbsolute(target.path))
    return url;
  const mark = url.indexOf("?");
  return `sqlite:${path.resolve(dir, target.path)}${mark >= 0 ? url.slice(mark) : ""}`;
}

function lineOf(config: DocketConfig | undefined, key: string): string {
  let line: number | undefined;
  for (
    let at = key;
    line === undefined && at !== "";
    at = at.slice(0, Math.max(0, at.lastIndexOf(".")))
  )
    line = config?.lines.get(at);
  return `${config?.file ?? "docket.yaml"}:${line ?? 1}`;
}

/**
 * Load the configuration every command shares: docket.yaml found by `--config`, else
 * `DOCKET_CONFIG`, else walking up from the working directory (as git finds `.git`), over the
 * user file `~/.config/docket/config.yaml`. Relative `workspace:` and `store:` paths resolve
 * against docket.yaml's folder, and without a `store:` the store is `.docket/docket.db` there.
 * Everything is checked before anything is created: a file that does not load, an unknown store
 * scheme or model provider, or a workspace that does not exist stops the command with the
 * file and line (or the flag) and the reason.
 *
 * @example
 * ```ts
 * declare const options: { config?: string; store?: string }; // the command's flags
 * const { runtime, storeUrl } = loadCliConfig({ config: options.config, store: options.store });
 * ```
 */
export function loadCliConfig(
  flags: { config?: string | undefined; store?: string | undefined },
  options: LoadCliConfigOptions = {},
): CliConfig {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const notice = options.notice ?? ((line: string) => process.stderr.write(`${line}\n`));
  const project = findConfigFile({ flag: flags.config, env, cwd });
  const projectDir = project ? path.dirname(project.file) : cwd;
  if (project && projectDir !== path.resolve(cwd) && project.via !== "--config") {
    if (!announced.has(project.file)) notice(`docket: using ${project.file}`);
    announced.add(project.file);
  }
  const candidate = userConfigFile(env);
  const userFile = existsSync(candidate) ? candidate : undefined;
  const user = userFile === undefined ? undefined : loadConfig(userFile, { env });
  // The user file on its own first, so its mistakes are reported with its own lines.
  if (user) readRuntimeConfig(user);
  const projectConfig = project
    ? loadConfig(displayName(project.file, cwd), { cwd, env })
    : undefined;
  const { config, origins } = layerConfigs({ user, project: projectConfig });
  const runtime = readRuntimeConfig(config);

  if (runtime.model?.name !== undefined) {
    checkModelString(runtime.model.name, lineOf(config, "model.name"));
  }
  for (const provider of Object.keys(runtime.model?.providers ?? {})) {
    checkModelString(`${provider}:-`, lineOf(config, `model.providers.${provider}`));
  }
  const workspace = path.resolve(projectDir, runtime.workspace ?? ".");
  if (!isDirectory(workspace)) {
    throw new DocketError(
      "config_invalid",
      `${lineOf(config, "workspace")}: workspace: ${workspace} is not a folder that exists`,
    );
  }
  let storeUrl: string;
  let storeFrom: string;
  const fromFlag = flags.store?.trim() ? flags.store : undefined;
  const fromEnv = env.DOCKET_STORE?.trim() ? env.DOCKET_STORE : undefined;
  if (fromFlag !== undefined || fromEnv !== undefined) {
    storeUrl = resolveStoreUrl({ flag: fromFlag, env });
    storeFrom = fromFlag !== undefined ? "--store" : "DOCKET_STORE";
  } else if (runtime.store !== undefined) {
    storeFrom = lineOf(config, "store");
    storeUrl = checkedStore(runtime.store, storeFrom, projectDir);
  } else {
    storeFrom = "default";
    storeUrl = project
      ? `sqlite:${path.join(projectDir, DEFAULT_SQLITE_PATH)}`
      : resolveStoreUrl({ env: {} });
  }
  if (storeFrom === "--store" || storeFrom === "DOCKET_STORE")
    checkedStore(storeUrl, storeFrom, cwd);
  let directory: ApproverDirectory | undefined;
  return {
    config,
    runtime,
    // Built when first asked for: a command that only reads the store (audit, sessions) needs
    // no approver, so an approver's unset token_env does not stop it.
    get directory() {
      directory ??= createApproverDirectory(runtime.approvers, env);
      return directory;
    },
    storeUrl,
    storeFrom,
    workspace,
    projectFile: projectConfig?.file,
    project,
    userFile,
    origins,
  };
}

function checkedStore(url: string, from: string, dir: string): string {
  try {
    return anchorStore(url, dir);
  } catch (error) {
    throw new DocketError("config_invalid", `${from}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
