// Prints what the package adds to a host app's bundle, minified and gzipped: the React entry
// (with its Markdown parser, without React itself or @toolview/client's transport, which a host
// shares) and the DOM entry. `npm run size` (the test suite prints it).
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const shared = ["react", "react-dom", "react/jsx-runtime", "@toolview/client", "@toolview/client/web", "@bufbuild/protobuf", "@connectrpc/*"];
for (const [name, entry] of [
  ["@toolview/react", "dist/index.js"],
  ["@toolview/react/dom", "dist/dom.js"],
]) {
  const out = await build({ entryPoints: [entry], bundle: true, minify: true, format: "esm", write: false, external: shared });
  const code = out.outputFiles[0].contents;
  // The package's own code: the same bundle with the Markdown parser left out too.
  const markdown = ["mdast-util-*", "micromark*"];
  const alone = await build({ entryPoints: [entry], bundle: true, minify: true, format: "esm", write: false, external: [...shared, ...markdown] });
  const own = alone.outputFiles[0].contents;
  const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
  console.log(
    `${name}: ${kib(gzipSync(code).length)} gzipped (${kib(code.length)} minified); its own code ${kib(gzipSync(own).length)} gzipped, the rest the Markdown parser`,
  );
}
