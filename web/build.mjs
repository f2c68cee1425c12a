// Builds what `toolview serve` embeds and `toolview mcp` serves, from `src/` and
// `@toolview/react`:
//   dist/viewer.js     the viewer's bundle (src/viewer.ts);
//   dist/viewer.css    the cards' styles (@toolview/react/styles.css), then the page's (viewer.css);
//   dist/mcp-app.html  the MCP App's view as one document: mcp-app.html with those styles and the
//                      bundled src/mcp-app.ts inlined, so it needs no origin of its own.
// `node build.mjs` writes them; `node build.mjs --check` builds them in memory and fails, naming
// the file, when one differs from what is committed (the test suite runs it).
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { build } from "esbuild";

const check = process.argv.includes("--check");

async function bundle(entry) {
  const out = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: "esm",
    target: "es2020",
    write: false,
    logLevel: "warning",
  });
  return out.outputFiles[0].text;
}

const cardStyles = readFileSync(createRequire(import.meta.url).resolve("@toolview/react/styles.css"), "utf8");
const css = `${cardStyles}\n${readFileSync("viewer.css", "utf8")}`;
// `</script` inside the bundle, `</style` inside the styles, would end the element early:
// escaped as the HTML spec advises.
const app = readFileSync("mcp-app.html", "utf8")
  .replace("/*STYLE*/", () => css.replaceAll("</style", "<\\/style"));
const appScript = (await bundle("src/mcp-app.ts")).replaceAll("</script", "<\\/script");
const outputs = {
  "dist/viewer.js": await bundle("src/viewer.ts"),
  "dist/viewer.css": css,
  "dist/mcp-app.html": app.replace("/*SCRIPT*/", () => appScript),
};

let stale = 0;
for (const [path, text] of Object.entries(outputs)) {
  if (!check) {
    writeFileSync(path, text);
    continue;
  }
  let committed = "";
  try {
    committed = readFileSync(path, "utf8");
  } catch {
    // Missing: stale.
  }
  if (committed !== text) {
    console.error(`${path} is not what web/src builds to: run \`npm run build\` in web/ and commit it`);
    stale += 1;
  }
}
process.exit(stale ? 1 : 0);
