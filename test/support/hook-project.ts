import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A project folder for hook calls: `yaml` as its docket.yaml, a home of its own (so no user
 * layer of the machine's is read), and the environment a host would give its hooks there, with
 * no DOCKET_CONFIG or DOCKET_STORE of the test run's. The caller removes `root`.
 *
 * @example
 * ```ts
 * const { root, env } = await hookProject("policy:\n  rules: []\n", "demo");
 * ```
 */
export async function hookProject(
  yaml: string,
  name: string,
): Promise<{ root: string; env: NodeJS.ProcessEnv }> {
  const root = await mkdtemp(join(tmpdir(), `docket-hook-${name}-`));
  await writeFile(join(root, "docket.yaml"), yaml);
  const home = join(root, ".home");
  await mkdir(home);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
  };
  delete env.DOCKET_CONFIG;
  delete env.DOCKET_STORE;
  return { root, env };
}
