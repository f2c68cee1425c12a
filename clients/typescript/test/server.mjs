// A real toolview server for the tests: TOOLVIEW_BIN (or the workspace's debug build), on a free
// loopback port, with its own data directory; `kill` then `start` keep both.
import { spawn } from "node:child_process";
import { accessSync, constants, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

export function binary() {
  const path = process.env.TOOLVIEW_BIN ?? join(here, "..", "..", "..", "target", "debug", "toolview");
  accessSync(path, constants.X_OK);
  return path;
}

export class Server {
  /** `extra`: more `serve` flags; a function of the data directory gets it. */
  constructor(extra = []) {
    this.dataDir = mkdtempSync(join(tmpdir(), "toolview-ts-"));
    this.address = "127.0.0.1:0";
    this.extra = typeof extra === "function" ? extra(this.dataDir) : extra;
  }

  async start() {
    const args = ["serve", "--listen", this.address, "--data-dir", join(this.dataDir, "db"), ...this.extra];
    this.process = spawn(binary(), args, {
      stdio: ["ignore", "pipe", "ignore"],
    });
    const lines = createInterface({ input: this.process.stdout });
    const [line] = await Promise.race([
      new Promise((resolve) => lines.once("line", (l) => resolve([l]))),
      new Promise((_, reject) => this.process.once("exit", (code) => reject(new Error(`toolview exited: ${code}`)))),
    ]);
    if (!line.startsWith("toolview listening on ")) throw new Error(`toolview did not start: ${line}`);
    this.address = line.split(" ").at(-1);
    return this;
  }

  /** SIGKILL: no goodbye to clients. */
  async kill() {
    const exited = new Promise((resolve) => this.process.once("exit", resolve));
    this.process.kill("SIGKILL");
    await exited;
  }

  async stop() {
    if (this.process && this.process.exitCode === null && this.process.signalCode === null) {
      const exited = new Promise((resolve) => this.process.once("exit", resolve));
      this.process.kill("SIGTERM");
      await exited;
    }
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/** A script of test/procs in a node process of its own; its stdout as lines. */
export function nodeProcess(script, ...args) {
  const child = spawn(process.execPath, [join(here, "procs", script), ...args], { stdio: ["ignore", "pipe", "pipe"] });
  child.lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  child.stderrText = "";
  child.stderr.on("data", (d) => (child.stderrText += d));
  child.done = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
  return child;
}
