/**
 * Import rules checked by `npm test` (dependency-cruiser). They keep one path to execution:
 * only the checkpoint can reach a tool's handler, and only handlers can reach the effect modules
 * that act on the world (docs/adr/0008-effect-modules.md). What these rules cannot see
 * (createRequire, computed import(), process.binding) and modules that act without the name are
 * found by the source scan in test/effect-sources.test.ts.
 *
 * Paths are matched with `(^|/)src/` so that the same rules can be run against the fixture tree
 * in test/fixtures/import-rules, which proves that they bite.
 */
module.exports = {
  forbidden: [
    {
      name: "handler-seal-only-in-checkpoint",
      severity: "error",
      comment:
        "The sealing key (tool/handler-seal.ts) reaches every tool's handler. Only src/checkpoint/ may read it; define-tool.ts seals with it. Tests are exempt.",
      from: {
        pathNot: [
          "(^|/)src/checkpoint/",
          "(^|/)src/tool/define-tool\\.ts$",
          "(^|/)src/tool/handler-seal\\.ts$",
          "\\.test\\.ts$",
        ],
      },
      to: { path: "(^|/)src/tool/handler-seal\\.ts$" },
    },
    {
      name: "handler-modules-only-beside-their-tool",
      severity: "error",
      comment:
        "A *.handler.ts module performs actions. Only the tool definition in the same folder (which seals it with defineTool) and its tests may import it.",
      from: { path: "^(.+)/[^/]+$" },
      // Type-only imports carry no code, so they cannot reach a handler.
      to: {
        path: "\\.handler\\.ts$",
        pathNot: "^$1/[^/]+\\.handler\\.ts$",
        dependencyTypesNot: ["type-only"],
      },
    },
    {
      name: "handler-modules-never-re-exported",
      severity: "error",
      comment:
        "A module that re-exports a *.handler.ts module (export { x } from, export * from) hands the handler to whoever imports it, from any folder: the one path would have a second door. Re-exporting its types is harmless. (A handler imported and then exported under a local name is found by the scan in test/import-rules.test.ts.)",
      from: {},
      to: {
        path: "\\.handler\\.ts$",
        dependencyTypes: ["export"],
        dependencyTypesNot: ["type-only"],
      },
    },
    {
      name: "effect-modules-only-from-handlers",
      severity: "error",
      comment:
        "A *.effect.ts module acts on the world (spawns, signals, connects, resolves, writes). Only handler modules and other effect modules may import it, so it is reached only through a sealed handler: from the checkpoint's execution step. Its own tests are exempt.",
      from: { pathNot: ["\\.handler\\.ts$", "\\.effect\\.ts$", "\\.test\\.ts$"] },
      // Type-only imports carry no code.
      to: { path: "\\.effect\\.ts$", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "no-circular",
      severity: "error",
      comment: "Import cycles make layers meaningless.",
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ["type-only"] } },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(dist|node_modules)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js", ".json"] },
  },
};
