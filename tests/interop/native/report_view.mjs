// Opens an `agui replay --html` page in a real headless Chromium (@sparticuz/chromium via
// playwright-core) and prints, as one JSON object on stdout, what a reader sees and
// what happened: console errors, requests other than the page itself, dialogs, and the
// outcome of following the links between a resume entry and its interrupt.
// Usage: node report_view.mjs PAGE.html SCREENSHOT.png [--timing]
// With --timing only the load and a few interactions are timed (for very large pages,
// where reading every card's text back would measure this script, not the page).
import { pathToFileURL } from "node:url";
import chromium from "@sparticuz/chromium";
import { chromium as playwright } from "playwright-core";

const [pagePath, screenshotPath, mode] = process.argv.slice(2);
if (!pagePath || !screenshotPath) {
  process.stderr.write("usage: node report_view.mjs PAGE.html SCREENSHOT.png\n");
  process.exit(2);
}
const pageUrl = pathToFileURL(pagePath).href;

const browser = await playwright.launch({
  executablePath: await chromium.executablePath(),
  args: chromium.args,
  headless: true,
});
const result = { consoleErrors: [], pageErrors: [], requests: [], dialogs: [] };
try {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  page.on("console", (message) => {
    if (message.type() === "error") result.consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => result.pageErrors.push(String(error)));
  page.on("dialog", async (dialog) => {
    result.dialogs.push(dialog.message());
    await dialog.dismiss();
  });
  await context.route("**/*", async (route) => {
    const url = route.request().url();
    if (url === pageUrl) return route.continue();
    result.requests.push(url);
    return route.abort();
  });
  const started = Date.now();
  await page.goto(pageUrl, { waitUntil: "load" });
  if (mode === "--timing") {
    result.timing = await timeInteractions(page, started);
  } else {
    await observe(page, result);
  }
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: screenshotPath });
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(result) + "\n");

/** What a reader sees, and what following its links and controls does. */
async function observe(page, result) {
  const started = Date.now();
  // Runs use `content-visibility: auto`: a run off screen is laid out only when a
  // reader scrolls to it, and `innerText` of content not laid out yet may miss parts of
  // it (a busy machine lost an interrupt's schema that way). Read every run as it
  // reads once scrolled to.
  // (Through the CSSOM: the page's content security policy allows no style element.)
  await page.evaluate(() => {
    for (const run of document.querySelectorAll(".run")) run.style.contentVisibility = "visible";
  });
  result.view = await page.evaluate(() => {
    const text = (node) => (node ? node.innerText.trim() : "");
    const visible = (node) => !!node && node.getClientRects().length > 0;
    return {
      title: document.title,
      totals: text(document.querySelector("#summary .totals")),
      summaryAboveRuns:
        document.querySelector("#summary").getBoundingClientRect().top <
        document.querySelector("#runs").getBoundingClientRect().top,
      runs: [...document.querySelectorAll("article.run")].map((run) => ({
        anchor: run.id,
        heading: text(run.querySelector("h3")),
        text: text(run),
      })),
      interrupts: [...document.querySelectorAll(".interrupt")].map((item) => ({
        anchor: item.id,
        id: text(item.querySelector(".interrupt-id")),
        status: text(item.querySelector(".status")),
        classes: [...item.classList],
        text: text(item),
        answers: [...item.querySelectorAll(".answer-links a")].map((a) => a.getAttribute("href")),
      })),
      resumes: [...document.querySelectorAll(".resume-entry")].map((entry) => ({
        anchor: entry.id,
        text: text(entry),
        classes: [...entry.classList],
        link: entry.querySelector("a.to-interrupt")?.getAttribute("href") ?? null,
      })),
      findings: [...document.querySelectorAll("li.finding")].map((item) => ({
        severity: text(item.querySelector(".severity")).toLowerCase(),
        rule: text(item.querySelector(".rule")),
        message: text(item.querySelector(".message")),
        visible: visible(item),
      })),
      rules: [...document.querySelectorAll("#summary table.rules tbody tr")].map((row) =>
        text(row),
      ),
      injected: window.__aguiInjected ?? null,
      images: document.images.length,
      scripts: document.scripts.length,
    };
  });

  // Follow a pause to its answer and back: resume entry → interrupt → resume entry.
  const inView = () =>
    page.evaluate(() => {
      const target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
      if (!target) return null;
      const box = target.getBoundingClientRect();
      return {
        hash: location.hash,
        visible: box.bottom > 0 && box.top < window.innerHeight && box.height > 0,
        text: target.innerText.trim(),
      };
    });
  result.clicks = [];
  const resumeLink = page.locator(".resume-entry a.to-interrupt").first();
  if ((await resumeLink.count()) > 0) {
    await resumeLink.click();
    result.clicks.push({ from: "resume", ...(await inView()) });
    const back = page.locator(`${await page.evaluate(() => location.hash)} .answer-links a`);
    if ((await back.count()) > 0) {
      await back.first().click();
      result.clicks.push({ from: "interrupt", ...(await inView()) });
    }
  }

  // Follow a pause from the summary to its answer: two clicks.
  const pauseLink = page.locator("#summary .pause-link").first();
  if ((await pauseLink.count()) > 0) {
    await pauseLink.click();
    result.clicks.push({ from: "summary", ...(await inView()) });
    const answer = page.locator(`${await page.evaluate(() => location.hash)} .answer-links a`);
    if ((await answer.count()) > 0) {
      await answer.first().click();
      result.clicks.push({ from: "pause", ...(await inView()) });
    }
  }

  // A folded text renders when opened.
  const fold = page.locator("details.lazy.text > summary").first();
  if ((await fold.count()) > 0) {
    await fold.click();
    const shown = page.locator("details.lazy.text[open] pre").first();
    await shown.waitFor({ timeout: 5000 });
    result.unfolded = await shown.innerText();
  }

  // The severity filter hides notices, and shows them again.
  const notices = page.locator('input[data-severity="notice"]');
  if ((await notices.count()) > 0) {
    await notices.uncheck();
    result.noticesShownWhenFiltered = await page.evaluate(
      () => [...document.querySelectorAll("li.finding.sev-notice")].filter(
        (item) => item.getClientRects().length > 0,
      ).length,
    );
    await notices.check();
  }
  result.interactionMs = Date.now() - started;

}

/** Times the load and a few interactions on a very large page. */
async function timeInteractions(page, loadStarted) {
  const timing = { loadMs: Date.now() - loadStarted };
  let started = Date.now();
  const fold = page.locator("details.lazy.text > summary");
  await fold.nth(Math.floor((await fold.count()) / 2)).click();
  await page.locator("details.lazy.text[open] pre").first().waitFor({ timeout: 30000 });
  timing.unfoldMs = Date.now() - started;
  started = Date.now();
  const pauses = page.locator(".pause-link");
  await pauses.nth((await pauses.count()) - 1).click();
  timing.pauseMs = Date.now() - started;
  timing.hashTarget = await page.evaluate(() => location.hash);
  started = Date.now();
  await page.locator('input[data-severity="notice"]').uncheck();
  timing.filterMs = Date.now() - started;
  timing.runs = await page.evaluate(() => document.querySelectorAll(".run").length);
  return timing;
}
