// An assistant's Markdown as elements (`node.ts`), sanitized by construction: the text is parsed
// to mdast (CommonMark + GFM) and only a closed set of nodes becomes elements, with text as text
// children — never HTML. Raw HTML is text, an image is a link, a link keeps only an
// http:, https: or mailto: target and shows it as its own text. The same rule as the server's
// Markdown and ANSI targets (docs/conversation.md#message-text).

import type { Nodes, PhrasingContent, RootContent } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import { type Child, h as el } from "./node.js";

/** Past this nesting the text is shown as plain text (the builder recurses). */
const MAX_NESTING = 32;

/** Whether a link may be followed: http:, https: and mailto: only. */
export function safeUrl(url: string): boolean {
  const scheme = url.split(":", 1)[0].toLowerCase();
  return url.includes(":") && (scheme === "http" || scheme === "https" || scheme === "mailto");
}

/** A code block's language: the info's first word, only a language name's characters. */
function language(lang: string | null | undefined): string {
  return (lang ?? "").replace(/[^A-Za-z0-9+\-._#]/g, "").slice(0, 32);
}

function h(tag: string, attrs: Record<string, string>, children: Child[]): Child {
  return el(tag, attrs, ...children);
}

/** The text of a node, without markup. */
function plain(node: Nodes): string {
  if ("value" in node) return node.value;
  if (node.type === "image" || node.type === "imageReference") return node.alt ?? "";
  if ("children" in node) return (node.children as Nodes[]).map(plain).join("");
  return node.type === "break" ? " " : "";
}

/** A followed link: its target as its text, after its label when that says something else. */
function link(url: string, label: Child[], labelText: string): Child[] {
  if (!safeUrl(url)) return labelText === url ? [...label] : [...label, ` (${url})`];
  const a = h("a", { href: url, rel: "noopener noreferrer nofollow", target: "_blank" }, [url]);
  return labelText === url ? [a] : [...label, " (", a, ")"];
}

class Builder {
  constructor(private readonly definitions: Map<string, string>) {}

  blocks(nodes: RootContent[], depth: number): Child[] {
    return nodes.flatMap((n) => this.block(n, depth + 1));
  }

  block(n: RootContent, depth: number): Child[] {
    if (depth > MAX_NESTING) throw new RangeError("nesting");
    switch (n.type) {
      case "paragraph":
        return [h("p", {}, this.spans(n.children, depth))];
      case "heading":
        return [h(`h${Math.min(Math.max(n.depth, 1), 6)}`, {}, this.spans(n.children, depth))];
      case "code": {
        const lang = language(n.lang);
        return [h("pre", { class: "code", ...(lang ? { "data-lang": lang } : {}) }, [h("code", {}, [n.value])])];
      }
      case "blockquote":
        return [h("blockquote", {}, this.blocks(n.children, depth))];
      case "list": {
        const attrs: Record<string, string> =
          n.ordered && n.start != null && n.start !== 1 ? { start: String(n.start) } : {};
        return [
          h(
            n.ordered ? "ol" : "ul",
            attrs,
            n.children.map((item) => {
              const mark = item.checked == null ? [] : [item.checked ? "[x] " : "[ ] "];
              // A tight item's paragraphs are its text, not paragraphs of their own.
              const body = n.spread
                ? this.blocks(item.children, depth)
                : item.children.flatMap((c) =>
                    c.type === "paragraph" ? this.spans(c.children, depth) : this.block(c, depth + 1),
                  );
              return h("li", {}, [...mark, ...body]);
            }),
          ),
        ];
      }
      case "table": {
        const [head, ...rows] = n.children;
        const row = (r: typeof head, cell: string) =>
          h(
            "tr",
            {},
            r.children.map((c) => h(cell, {}, this.spans(c.children, depth))),
          );
        return [
          h("table", {}, [
            h("thead", {}, head ? [row(head, "th")] : []),
            h(
              "tbody",
              {},
              rows.map((r) => row(r, "td")),
            ),
          ]),
        ];
      }
      case "thematicBreak":
        return [h("hr", {}, [])];
      case "html":
        return [h("p", { class: "html" }, [n.value])];
      case "definition":
        return [];
      case "footnoteDefinition":
        return this.blocks(n.children, depth);
      default:
        // Phrasing content at block level (never from the parser), or a kind not listed: its text.
        return [plain(n)];
    }
  }

  spans(nodes: PhrasingContent[], depth: number): Child[] {
    return nodes.flatMap((n) => this.span(n, depth + 1));
  }

  span(n: PhrasingContent, depth: number): Child[] {
    if (depth > MAX_NESTING) throw new RangeError("nesting");
    switch (n.type) {
      case "text":
      case "html":
        return [n.value];
      case "inlineCode":
        return [h("code", {}, [n.value])];
      case "emphasis":
        return [h("em", {}, this.spans(n.children, depth))];
      case "strong":
        return [h("strong", {}, this.spans(n.children, depth))];
      case "delete":
        return [h("del", {}, this.spans(n.children, depth))];
      case "break":
        return [h("br", {}, [])];
      case "link":
        return link(n.url, this.spans(n.children, depth), plain(n));
      case "linkReference": {
        const url = this.definitions.get(n.identifier);
        const label = this.spans(n.children, depth);
        return url === undefined ? [plain(n)] : link(url, label, plain(n));
      }
      case "image":
      case "imageReference": {
        const url = n.type === "image" ? n.url : this.definitions.get(n.identifier);
        const label = n.alt ? `image: ${n.alt}` : "image";
        return url === undefined ? [label] : link(url, [label], label);
      }
      case "footnoteReference":
        return [`[^${n.identifier}]`];
      default:
        return [plain(n)];
    }
  }
}

function definitions(node: Nodes, out: Map<string, string>, depth = 0): Map<string, string> {
  if (depth > MAX_NESTING) return out;
  if (node.type === "definition" && !out.has(node.identifier)) out.set(node.identifier, node.url);
  if ("children" in node) for (const c of node.children as Nodes[]) definitions(c, out, depth + 1);
  return out;
}

/** `text` as sanitized Markdown elements; plain text past the nesting limit. */
export function markdown(text: string): Child[] {
  const tree = fromMarkdown(text, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
  try {
    return new Builder(definitions(tree, new Map())).blocks(tree.children, 0);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    return [h("p", {}, [text])];
  }
}

/** The output inside a presenter's console block ("```console\n…\n```", the fence longer than
 *  any backtick run of the output) or plain block (Claude Code's errors, "```\n…\n```"), or
 *  undefined when `text` is not exactly one. */
export function consoleBody(text: string): string | undefined {
  return codeBody(text, "console") ?? codeBody(text, "");
}

/** The body of a presenter's block with `info` (`console`, or none: Claude Code's errors). */
function codeBody(text: string, info: string): string | undefined {
  const fence = /^`{3,}/.exec(text)?.[0];
  const head = `${fence}${info}\n`;
  if (!fence || text.length < head.length + 1 + fence.length) return undefined;
  if (!text.startsWith(head) || !text.endsWith(`\n${fence}`)) return undefined;
  const body = text.slice(head.length, text.length - fence.length - 1);
  const longest = Math.max(0, ...body.split("\n").map((l) => (/^ {0,3}(`*)/.exec(l)?.[1] ?? "").length));
  return Math.max(longest + 1, 3) === fence.length ? body : undefined;
}
