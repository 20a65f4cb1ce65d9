import type { SandboxNetworkFilter } from "./network/network-filter.js";
import type { NetworkRuleLayer } from "./network/network-rules.js";

/** How the shell is confined: `auto` (sandbox where available), `required`, or `off`. */
export type SandboxMode = "auto" | "required" | "off";

/**
 * Which network a sandboxed process sees. With bubblewrap, `none` and `loopback` both give it a
 * network namespace of its own holding only `lo` (bwrap brings it up): nothing outside the
 * sandbox, the host's 127.0.0.1 included, is reachable. `all` shares the host's network.
 */
export type SandboxNetwork = "none" | "loopback" | "all";

/** The `sandbox:` section of docket.yaml, as code. Every field has a default. */
export interface SandboxSettings {
  readonly mode?: SandboxMode;
  /** `none`, `loopback`, `all`, or a filter: the outside by host name, through docket's proxy. */
  readonly network?: SandboxNetwork | SandboxNetworkFilter;
  /**
   * The network votes of the policy's layers (managed, user, project: a `network:` in each policy
   * file), which every filtered network of this sandbox counts besides its own (ADR 0052).
   */
  readonly networkLayers?: readonly NetworkRuleLayer[];
  /** Names of variables passed through from docket's environment besides the allow-list. */
  readonly env?: readonly string[];
  /** Variables set to fixed values inside the sandbox. */
  readonly setEnv?: Readonly<Record<string, string>>;
  readonly limits?: {
    /** Processes (and threads) the call may have at once. Default 512. */
    readonly processes?: number;
    /** Heap and private writable memory per process (RLIMIT_DATA), in MiB. Default 8192. */
    readonly memoryMb?: number;
  };
  /** Absolute paths made invisible inside the sandbox (files or directories). */
  readonly hide?: readonly string[];
  /** Path globs (as in deny `path` rules) whose matches are made invisible at each call. */
  readonly hidePatterns?: readonly string[];
  /** Extra absolute paths the sandbox may write besides the workspace. */
  readonly writable?: readonly string[];
  /**
   * Absolute paths inside the writable ones that stay read-only (docket's installed code): bound
   * onto themselves, so they can neither be written nor renamed away. Set by docket, not by
   * docket.yaml.
   */
  readonly readOnly?: readonly string[];
  /**
   * docket's own folders (`~/.config/docket`, `.docket/`): hidden like `hide`, and made (0700)
   * before a launch when missing inside a writable path, so the command finds them covered
   * rather than free to create and fill. Set by docket, not by docket.yaml.
   */
  readonly ownDirs?: readonly string[];
  /**
   * docket's own files (docket.yaml, the store, the audit key, …): a launch is refused when one
   * is reached through a symbolic link lying in a writable path, which the command could swap for
   * a file of its own. Set by docket, not by docket.yaml.
   */
  readonly ownFiles?: readonly string[];
  /**
   * docket's config files, which it loads at start and never writes (docket.yaml, the managed
   * policy): one missing at a long-lived program's launch (an MCP server) that exists later was
   * made by that program, and is renamed aside. Set by docket, not by docket.yaml.
   */
  readonly ownConfigFiles?: readonly string[];
  /** Most directory entries looked at when expanding `hidePatterns`; above it the call is refused. */
  readonly walkLimit?: number;
  /** The bubblewrap binary. Default `bwrap` (found on PATH). */
  readonly bwrapPath?: string;
}

/** The variables a sandboxed command gets from docket's environment, when set there. */
export const SANDBOX_ENV_ALLOW = ["PATH", "HOME", "LANG", "TERM", "TZ", "USER", "SHELL"] as const;

/**
 * Folders in the home folder that hold the sockets of daemons that act with the user's powers,
 * or more: Docker Desktop's and rootless Docker's API (access to it is root on the host), Colima,
 * Rancher Desktop, Lima and Podman machines, gpg-agent and its keyrings. A network namespace does
 * not stop a connection to a Unix socket by path, so every sandbox hides these (missing ones are
 * skipped). Sockets under /run, /tmp and /var/tmp are gone with those folders already.
 */
export const SANDBOX_SOCKET_DIRS = [
  "~/.docker/run",
  "~/.docker/desktop",
  "~/.colima",
  "~/.rd",
  "~/.lima",
  "~/.local/share/containers/podman/machine",
  "~/.gnupg",
] as const;

/** Defaults of `SandboxSettings`, applied in one place. */
export const SANDBOX_DEFAULTS = {
  mode: "auto",
  network: "none",
  processes: 512,
  memoryMb: 8192,
  walkLimit: 20_000,
  bwrapPath: "bwrap",
} as const;
