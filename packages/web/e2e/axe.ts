import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/** axe-core's own build, put into the page as it is (no wrapper package: the rules are axe's, unchanged). */
const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

declare global {
  interface Window {
    axe?: { run: (context: Document, options: unknown) => Promise<{ violations: AxeViolation[] }> };
  }
}
interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; html: string; failureSummary?: string }[];
}

/** axe-core's WCAG 2 A and AA violations of the page, one line per node. */
export async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(AXE_SOURCE);
  const { violations } = await page.evaluate(() => window.axe!.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] }, resultTypes: ['violations'] }));
  // The node's markup and axe's own account (for contrast: the two colours and the ratio) say what to change.
  const why = (n: AxeViolation['nodes'][number]) => (n.failureSummary ?? '').split('\n').slice(1).join(' ').trim().slice(0, 160);
  return violations.flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${v.help} — ${n.target.join(' ')} ${n.html.slice(0, 100)} ${why(n)}`));
}
