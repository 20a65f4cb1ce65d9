import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { escapeHtml, html } from "./html.js";

describe("html", () => {
  it("escapes every interpolated string, so no value can open a tag or leave an attribute", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.array(fc.string()), (value, list) => {
        const out = html`<p title="${value}">${value}${list}</p>`.toString();
        const inner = out.slice('<p title="'.length, -"</p>".length);
        expect(inner.replace(/^[^"]*">/, "")).not.toMatch(/[<>"'`]/);
        expect(out.match(/"/g)?.length).toBe(2);
      }),
    );
  });

  it("keeps markup built with html, renders lists, and drops false, null and undefined", () => {
    const item = (x: string) => html`<li>${x}</li>`;
    expect(html`<ul>${["<a>", "b"].map(item)}${false}${null}${undefined}</ul>`.toString()).toBe(
      "<ul><li>&lt;a&gt;</li><li>b</li></ul>",
    );
    expect(escapeHtml(`<img src=x onerror="alert('1')">`)).toBe(
      "&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt;",
    );
  });
});
