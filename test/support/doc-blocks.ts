import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './processes';

/** A fenced block of a markdown page, as a reader meets it. */
export interface Block {
  file: string;
  /** The line of the opening fence, 1-based. */
  line: number;
  lang: string;
  text: string;
  /** The reason given in `<!-- not run: … -->` on the line before the block, when there is one. */
  excuse?: string;
}

/** The fenced blocks of `file` (a path from the repository's root), in order. Throws on a block never closed. */
export function blocksOf(file: string): Block[] {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\S*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^\s*```\s*$/.test(lines[i]); i++) body.push(lines[i].slice(open[1].length));
    if (i === lines.length) throw new Error(`${file}:${start + 1}: the block is never closed`);
    let before = start - 1;
    while (before >= 0 && lines[before].trim() === '') before--;
    const excuse = before >= 0 ? /^\s*<!--\s*not run:(.*?)-->\s*$/.exec(lines[before])?.[1].trim() : undefined;
    blocks.push({ file, line: start + 1, lang: open[2], text: body.join('\n'), excuse });
  }
  return blocks;
}
