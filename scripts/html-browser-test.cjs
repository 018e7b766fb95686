// Opens an HTML page exported by `trajscope export --html` in headless Chromium and checks
// what a reader relies on: no network request at all, no script error or blocked script,
// step anchors that scroll the step into view, folds that open and close, the sidebar
// following the current step, keyboard navigation. Saves screenshots (light and dark).
//
//   node scripts/html-browser-test.cjs PAGE.html SCREENSHOT.png [STEP]
//
// Run through scripts/html-browser-test.sh, which finds Chromium and playwright-core.
"use strict";
const path = require("path");
const fs = require("fs");
const os = require("os");
const { chromium } = require("playwright-core");

const [page_file, shot, step_arg] = process.argv.slice(2);
if (!page_file || !shot) {
  console.error("usage: html-browser-test.cjs PAGE.html SCREENSHOT.png [STEP]");
  process.exit(2);
}
const url = "file://" + path.resolve(page_file);
const failures = [];
const check = (ok, what) => {
  console.log((ok ? "ok   " : "FAIL ") + what);
  if (!ok) failures.push(what);
};

(async () => {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "trajscope-chromium-"));
  // A fresh, empty profile (playwright passes it as --user-data-dir).
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    viewport: { width: 1280, height: 860 },
    args: [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
    ],
  });
  try {
    const page = await context.newPage();
    const requests = [];
    const problems = [];
    page.on("request", (r) => { if (r.url().split("#")[0] !== url) requests.push(r.url()); });
    page.on("console", (m) => { if (m.type() === "error") problems.push(m.text()); });
    page.on("pageerror", (e) => problems.push(String(e)));

    await page.goto(url, { waitUntil: "load" });
    const steps = await page.locator("section.step").count();
    check(steps > 0, `page shows ${steps} steps`);
    const target = Math.min(Number(step_arg || 5), steps);
    const anchor = `step-${target}`;

    // Anchor: a sidebar link scrolls its step to the top of the view.
    await page.click(`#toc a[href="#${anchor}"]`);
    await page.waitForFunction((id) => location.hash === "#" + id, anchor);
    const box = await page.evaluate((id) => {
      const r = document.getElementById(id).getBoundingClientRect();
      return { top: r.top, height: window.innerHeight };
    }, anchor);
    check(box.top >= -1 && box.top < 40, `#${anchor} is at the top of the view (top ${box.top.toFixed(0)}px)`);
    const current = await page.getAttribute(`#toc a[href="#${anchor}"]`, "class");
    check((current || "").includes("current"), `the sidebar marks #${anchor} as current (script ran)`);

    // Navigating straight to an anchor works too.
    await page.goto(url + "#step-1", { waitUntil: "load" });
    const top1 = await page.evaluate(() => document.getElementById("step-1").getBoundingClientRect().top);
    check(top1 >= -1 && top1 < 40, `opening the page at #step-1 shows step 1 (top ${top1.toFixed(0)}px)`);

    // Keyboard: j goes to the next step.
    await page.keyboard.press("j");
    await page.waitForFunction(() => location.hash === "#step-2").catch(() => {});
    check(await page.evaluate(() => location.hash) === "#step-2", "key j moves to #step-2");

    // Folding: a closed observation opens on a click on its summary, and closes again.
    const folds = page.locator("details.obs:not([open])");
    const folded = await folds.count();
    check(folded > 0, `${folded} long observations are folded`);
    if (folded > 0) {
      // A handle, not a locator: the locator would move on to the next closed fold.
      const fold = await folds.first().elementHandle();
      const summary = await fold.$("summary");
      const pre = await fold.$("pre");
      await summary.scrollIntoViewIfNeeded();
      const hidden = !(await pre.isVisible());
      await summary.click();
      const opened = await fold.evaluate((d) => d.open);
      const shown = await pre.isVisible();
      check(hidden && opened && shown,
        `clicking a summary opens its observation (hidden before: ${hidden}, open: ${opened}, shown: ${shown})`);
      await summary.click();
      check(!(await fold.evaluate((d) => d.open)) && !(await pre.isVisible()), "clicking it again folds it");
    }
    await page.click("#expand-all");
    check(await page.evaluate(() => [...document.querySelectorAll("main details")].every((d) => d.open)),
      "expand all opens every fold");
    await page.click("#collapse-all");
    check(await page.evaluate(() => [...document.querySelectorAll("main details")].every((d) => !d.open)),
      "collapse all folds them again");

    // Screenshots at the chosen step, light and dark.
    await page.goto(url + "#" + anchor, { waitUntil: "load" });
    await page.screenshot({ path: shot });
    const dark = shot.replace(/(\.png)?$/, "-dark.png");
    await page.emulateMedia({ colorScheme: "dark" });
    await page.screenshot({ path: dark });
    console.log(`screenshots: ${shot} ${dark}`);

    check(requests.length === 0, `no network request (${requests.length}: ${requests.slice(0, 5).join(" ")})`);
    check(problems.length === 0, `no script error or blocked resource (${problems.slice(0, 3).join(" | ")})`);
  } finally {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  if (failures.length) {
    console.error(`${failures.length} browser check(s) failed`);
    process.exit(1);
  }
  console.log("all browser checks passed");
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
