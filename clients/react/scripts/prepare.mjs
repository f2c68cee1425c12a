// `npm install ./clients/typescript` (a folder install) runs `prepare` in a checkout that may
// have no node_modules yet: install the locked devDependencies (TypeScript) first, then build,
// so that the one install command needs nothing else on the machine.
import { execSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
if (!existsSync(`${root}node_modules/.bin/tsc`)) {
  execSync("npm ci --ignore-scripts --no-audit --no-fund --loglevel=error", { cwd: root, stdio: "inherit" });
}
execSync("npm run build", { cwd: root, stdio: "inherit" });
