// Test oracle: run Mermaid's own stateDiagram parser (and, on request, its
// renderer) headless, so statedoc's tests compare against the real client
// instead of our reading of the grammar.
//
// stdin:  a JSON array; each item is a diagram text, or {"text": ..., "render": true}
//         to also lay the diagram out and report what the labels display.
// stdout: a JSON array with one result per item, in order:
//   {"error": "..."}             mermaid.parse() rejected it, or it is another diagram type
//   {"type": "stateDiagram-v2" | "stateDiagram", "nodes": [...], "edges": [...],
//    "rendered"?: {...}, "render_error"?: "..."}
// nodes: {id, shape, label, text, descriptions}; edges: {id, start, end, label, text}.
//   label: Mermaid's label with its entity placeholders decoded (ﬂ°° -> &#, ﬂ° -> &,
//          ¶ß -> ;), i.e. the HTML/Markdown source Mermaid hands to its renderer.
//   text:  what that label shows when nothing in it is markup: <br> -> "\n" and
//          HTML character references decoded as a browser does.
// rendered: {nodes: {id: {html, text, tags}}, edges: {edgeId: {html, text, tags}}} taken
//   from the SVG that mermaid.render() produced; tags lists the elements inside the
//   label other than <p>/<br> (markup such as em, strong, i, math means the
//   text was interpreted, not shown literally).
// One process handles many diagrams: jsdom and Mermaid take ~1 s to start.

import { readFileSync } from 'node:fs';
import { JSDOM } from 'jsdom';

const dom = new JSDOM('<!DOCTYPE html><html><body></body></html>', { pretendToBeVisual: true });
const win = dom.window;
// DOMPurify binds `window` when Mermaid is imported: set the globals first.
globalThis.window = win;
globalThis.document = win.document;
globalThis.CSSStyleSheet = win.CSSStyleSheet;
// jsdom does no layout; the renderer only needs numbers to place boxes.
win.SVGElement.prototype.getBBox = function getBBox() {
  return { x: 0, y: 0, width: 40, height: 20 };
};
win.SVGElement.prototype.getComputedTextLength = function getComputedTextLength() {
  return 40;
};

// Keep stdout for the JSON answer only: anything Mermaid logs goes to stderr.
const out = process.stdout;
console.log = console.error;
console.info = console.error;
console.warn = console.error;
console.debug = console.error;

const { default: mermaid } = await import('mermaid');
mermaid.initialize({ startOnLoad: false, logLevel: 'fatal' });

const decodePlaceholders = (s) =>
  String(s).replace(/ﬂ°°/g, '&#').replace(/ﬂ°/g, '&').replace(/¶ß/g, ';');

// RCDATA parsing (textarea) decodes character references exactly as a browser
// does for text, without interpreting tags.
const textarea = win.document.createElement('textarea');
const htmlToText = (html) => {
  textarea.innerHTML = html.replace(/<br\s*\/?>/gi, '\n');
  return textarea.value;
};

const labelText = (label) => htmlToText(decodePlaceholders(label ?? ''));

const spanInfo = (span) => {
  if (!span) return null;
  const clone = span.cloneNode(true);
  for (const br of [...clone.querySelectorAll('br')]) br.replaceWith('\n');
  const tags = [...span.querySelectorAll('*')]
    .map((e) => e.tagName.toLowerCase())
    .filter((t) => t !== 'p' && t !== 'br');
  return { html: span.innerHTML, text: clone.textContent, tags };
};

let renderCount = 0;
async function renderLabels(text, data) {
  const id = `oracle${renderCount++}`;
  const { svg } = await mermaid.render(id, text);
  const holder = win.document.createElement('div');
  holder.innerHTML = svg;
  const nodes = {};
  for (const n of data.nodes) {
    const g = holder.querySelector(`g.node[id="${id}-${n.domId}"]`);
    if (!g) continue;
    nodes[n.id] = spanInfo(g.querySelector('span.nodeLabel'));
  }
  const edges = {};
  for (const e of data.edges) {
    const g = holder.querySelector(`g.label[data-id="${e.id}"]`);
    if (!g) continue;
    edges[e.id] = spanInfo(g.querySelector('span.edgeLabel'));
  }
  return { nodes, edges };
}

async function handle(item) {
  const text = typeof item === 'string' ? item : item.text;
  const wantRender = typeof item === 'object' && item !== null && item.render === true;
  let type;
  try {
    ({ diagramType: type } = await mermaid.parse(text));
  } catch (err) {
    return { error: String(err?.message ?? err) };
  }
  if (type !== 'stateDiagram' && type !== 'stateDiagram-v2') {
    return { error: `not a state diagram: ${type}`, type };
  }
  let data;
  try {
    const diagram = await mermaid.mermaidAPI.getDiagramFromText(text);
    data = diagram.db.getData();
  } catch (err) {
    return { error: `getDiagramFromText: ${String(err?.message ?? err)}` };
  }
  const result = {
    type,
    nodes: data.nodes.map((n) => {
      const descriptions = Array.isArray(n.description) ? n.description : [];
      return {
        id: n.id,
        shape: n.shape,
        label: decodePlaceholders(n.label ?? ''),
        text: labelText(n.label),
        descriptions: descriptions.map((d) => labelText(d)),
        isGroup: Boolean(n.isGroup),
      };
    }),
    edges: data.edges.map((e) => ({
      id: e.id,
      start: e.start,
      end: e.end,
      label: decodePlaceholders(e.label ?? ''),
      text: labelText(e.label),
    })),
  };
  if (wantRender) {
    try {
      result.rendered = await renderLabels(text, data);
    } catch (err) {
      result.render_error = String(err?.message ?? err);
    }
  }
  return result;
}

const input = JSON.parse(readFileSync(0, 'utf8'));
if (!Array.isArray(input)) {
  process.stderr.write('parse.mjs: stdin must be a JSON array\n');
  process.exit(2);
}
const results = [];
for (const item of input) {
  results.push(await handle(item));
}
out.write(JSON.stringify(results));
out.write('\n');
