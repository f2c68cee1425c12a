// Reads [{before, after}] as JSON on stdin; writes, per case, jsdiff 9's structuredPatch hunks
// (context 3) split into sides the way producers.md defines them: [{oldText, newText, newStart}].
const { structuredPatch } = require('diff');

const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const out = input.map(({ before, after }) => {
  const patch = structuredPatch('', '', before, after, undefined, undefined, { context: 3 });
  return patch.hunks.map((h) => {
    const oldSide = [];
    const newSide = [];
    for (const line of h.lines) {
      const tag = line[0];
      const text = line.slice(1);
      if (tag === '\\') continue;
      if (tag !== '+') oldSide.push(text);
      if (tag !== '-') newSide.push(text);
    }
    return {
      oldText: oldSide.length ? oldSide.join('\n') : null,
      newText: newSide.join('\n'),
      newStart: h.newStart,
    };
  });
});
process.stdout.write(JSON.stringify(out));
