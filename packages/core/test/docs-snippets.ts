import path from 'node:path';

/** A compiled snippet of docs/plugins.md (a section followed by `<!-- compiled -->`). */
export interface Snippet {
  section: string;
  /** The line of docs/plugins.md the snippet's code starts on (1-based). */
  line: number;
  file: string;
  code: string;
}

/**
 * The ```ts blocks of the compiled sections of `markdown`, each the file of the example plugin in
 * `plugin` that its first line names (`// src/….ts`, `// test/….ts`), else a file of its own in `src/`.
 */
export function compiledSnippets(markdown: string, plugin: string): Snippet[] {
  const lines = markdown.split('\n');
  const snippets: Snippet[] = [];
  // The open sections, outermost first: a subsection of a compiled section is compiled too.
  const open: Array<{ level: number; title: string; compiled: boolean }> = [];
  for (let i = 0; i < lines.length; i++) {
    const heading = /^(#{1,6})\s+(.+)$/.exec(lines[i]);
    if (heading) {
      const level = heading[1].length;
      while (open.length && open[open.length - 1].level >= level) open.pop();
      const next = lines.slice(i + 1).find((l) => l.trim() !== '');
      open.push({ level, title: heading[2], compiled: next?.trim() === '<!-- compiled -->' || open.some((s) => s.compiled) });
      continue;
    }
    const fence = /^```(\S*)/.exec(lines[i]);
    if (!fence) continue;
    const start = i + 1;
    do i++;
    while (i < lines.length && !lines[i].startsWith('```'));
    const section = open[open.length - 1];
    if (fence[1] !== 'ts' || !section?.compiled) continue;
    const code = lines.slice(start, i).join('\n');
    const named = /^\/\/ ((?:src|test)\/[\w./-]+\.ts)$/.exec(lines[start]);
    snippets.push({ section: section.title, line: start + 1, file: path.join(plugin, named ? named[1] : `src/snippet-at-line-${start + 1}.ts`), code });
  }
  return snippets;
}
