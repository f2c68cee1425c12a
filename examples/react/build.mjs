// Bundles the example pages into OUT (default: dist/): copilotkit.html, use-chat.html,
// session.html and inbox.html, each with its script and stylesheet. `node build.mjs [OUT]`; then serve OUT from any origin the
// toolview server allows (`--cors-origin`).
import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { build } from "esbuild";

const out = process.argv[2] ?? "dist";
mkdirSync(out, { recursive: true });
// One React for the pages and for @toolview/react (a folder dependency with its own
// node_modules): resolved from here, whoever imports it.
const here = createRequire(import.meta.url);
const oneReact = {
  name: "one-react",
  setup(b) {
    b.onResolve({ filter: /^react(-dom)?(\/.*)?$/ }, (args) => ({ path: here.resolve(args.path) }));
  },
};
for (const page of ["copilotkit", "use-chat", "session", "inbox"]) {
  await build({
    entryPoints: [`${page}.tsx`],
    bundle: true,
    minify: true,
    format: "esm",
    target: "es2022",
    jsx: "automatic",
    outdir: out,
    define: { "process.env.NODE_ENV": '"production"' },
    plugins: [oneReact],
    loader: { ".woff": "file", ".woff2": "file", ".ttf": "file" },
    logLevel: "warning",
  });
  writeFileSync(
    `${out}/${page}.html`,
    `<!doctype html><html><head><meta charset="utf-8"><title>toolview — ${page}</title>` +
      `<link rel="stylesheet" href="${page}.css"></head>` +
      `<body><div id="root"></div><script type="module" src="${page}.js"></script></body></html>\n`,
  );
}
