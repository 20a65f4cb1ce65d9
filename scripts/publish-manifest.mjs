// The package.json a user installs has no `prepare` script. In a checkout, `prepare` builds dist/
// after `npm ci` (the README's `npx docket demo` runs it); in an installed package it would do
// nothing, yet npm 11 lists it as an install script to review on every `npm i docket`. So
// `npm pack` and `npm publish` ship the manifest without it: `prepack` builds, then takes it out
// (npm then runs no `prepare` of its own), and `postpack` puts the checkout's file back.
//   node scripts/publish-manifest.mjs strip | restore
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";

const manifest = new URL("../package.json", import.meta.url);
const saved = new URL("../package.json.packing", import.meta.url);

if (process.argv[2] === "strip") {
  const text = readFileSync(manifest, "utf8");
  const pkg = JSON.parse(text);
  writeFileSync(saved, text);
  delete pkg.scripts.prepare;
  delete pkg.scripts.prepack;
  delete pkg.scripts.postpack;
  writeFileSync(manifest, `${JSON.stringify(pkg, null, 2)}\n`);
} else if (process.argv[2] === "restore") {
  if (existsSync(saved)) renameSync(saved, manifest);
} else {
  console.error("usage: node scripts/publish-manifest.mjs strip | restore");
  process.exit(2);
}
