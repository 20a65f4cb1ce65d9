import { describe, expect, it } from "vitest";
import { decodeBody, parseContentType } from "./content-kind.js";
import { htmlToMarkdown } from "./html-to-markdown.js";

describe("htmlToMarkdown", () => {
  it("keeps the text, drops scripts and styles, and pulls out the title", () => {
    const page = htmlToMarkdown(
      "<html><head><title>Docs &amp; more</title><style>p{}</style></head><body><script>alert(1)</script><h1>Hello</h1><p>Some <b>bold</b> text.</p><ul><li>one</li></ul></body></html>",
    );
    expect(page.title).toBe("Docs & more");
    expect(page.markdown).toBe("# Hello\n\nSome **bold** text.\n\n* one");
  });

  it("makes relative links and images absolute", () => {
    const page = htmlToMarkdown(
      '<a href="/docs">docs</a> <a href="next.html">next</a> <a href="#top">top</a> <a href="https://x.org/">x</a> <img src="img/a.png" alt="a">',
      "https://example.com/guide/intro.html",
    );
    expect(page.markdown).toContain("[docs](https://example.com/docs)");
    expect(page.markdown).toContain("[next](https://example.com/guide/next.html)");
    expect(page.markdown).toContain("[top](#top)");
    expect(page.markdown).toContain("[x](https://x.org/)");
    expect(page.markdown).toContain("![a](https://example.com/guide/img/a.png)");
  });
});

describe("parseContentType and decodeBody", () => {
  it("classifies media types", () => {
    expect(parseContentType("text/html; charset=ISO-8859-1")).toEqual({
      mime: "text/html",
      charset: "iso-8859-1",
      kind: "html",
    });
    expect(parseContentType("application/vnd.api+json").kind).toBe("text");
    expect(parseContentType("text/csv").kind).toBe("text");
    expect(parseContentType("image/png").kind).toBe("other");
    expect(parseContentType(undefined).kind).toBe("unknown");
  });

  it("decodes with the declared charset and survives unknown labels", () => {
    expect(decodeBody(Buffer.from([0x63, 0x61, 0x66, 0xe9]), "iso-8859-1")).toBe("café");
    expect(decodeBody(Buffer.from("ok"), "x-made-up")).toBe("ok");
    expect(decodeBody(Buffer.from("é").subarray(0, 1), undefined)).toBe("");
  });
});
