// axe-core (Deque's accessibility engine, from npm) run inside the page.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/**
 * serious returns the serious and critical violations axe finds in the page
 * (or under the selector), each as "rule: target (summary)" lines.
 */
export async function serious(page, selector) {
  if (!(await page.evaluate(() => typeof window.axe !== 'undefined'))) {
    await page.addScriptTag({ content: AXE });
  }
  const violations = await page.evaluate(async (sel) => {
    const ctx = sel ? document.querySelector(sel) : document;
    const r = await window.axe.run(ctx, { resultTypes: ['violations'] });
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => `${n.target.join(' ')} — ${n.failureSummary?.split('\n').slice(1, 2).join(' ').trim()}`) }));
  }, selector ?? null);
  return violations.flatMap((v) => v.nodes.slice(0, 5).map((n) => `${v.id} (${v.impact}): ${n}`).concat(v.nodes.length > 5 ? [`${v.id}: and ${v.nodes.length - 5} more`] : []));
}

/**
 * inBothThemes runs serious in the dark and in the light theme (picked as
 * the toolbar's toggle does), each line prefixed with its theme; shot, when
 * given, is called in each theme (a screenshot). The pick the page had is
 * put back.
 */
export async function inBothThemes(page, selector, shot) {
  const before = await page.evaluate(() => window.weft.store.getState().themePref);
  const out = [];
  for (const theme of ['dark', 'light']) {
    await page.evaluate((t) => window.weft.store.getState().setThemePref(t), theme);
    await page.waitForFunction((t) => document.documentElement.dataset.theme === t, theme);
    await page.waitForTimeout(50); // the canvases redraw
    out.push(...(await serious(page, selector)).map((l) => `${theme}: ${l}`));
    if (shot) await shot(theme);
  }
  await page.evaluate((t) => window.weft.store.getState().setThemePref(t), before);
  return out;
}
