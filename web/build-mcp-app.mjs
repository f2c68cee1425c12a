// Builds the MCP App's view as one document (`dist/mcp-app.html`): `mcp-app.html` with the
// viewer's stylesheet and the bundled `src/mcp-app.ts` inlined, so the view needs no origin of
// its own (its content security policy names none). `node build-mcp-app.mjs OUT` writes OUT.
import { readFileSync, writeFileSync } from "node:fs";
import { build } from "esbuild";

const out = process.argv[2] ?? "dist/mcp-app.html";
const bundle = await build({
  entryPoints: ["src/mcp-app.ts"],
  bundle: true,
  minify: true,
  format: "esm",
  target: "es2020",
  write: false,
  logLevel: "warning",
});
// `</script` inside the bundle would end the element early: escaped as the HTML spec advises.
const script = bundle.outputFiles[0].text.replaceAll("</script", "<\\/script");
const style = readFileSync("viewer.css", "utf8").replaceAll("</style", "<\\/style");
const html = readFileSync("mcp-app.html", "utf8")
  .replace("/*STYLE*/", () => style)
  .replace("/*SCRIPT*/", () => script);
writeFileSync(out, html);
