// Headless Debian Chromium through playwright-core, with the flags this machine needs (never
// `playwright install`). CHROMIUM overrides the executable. Every context starts empty.
import { chromium } from "playwright-core";

const FLAGS = [
  "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-sync",
  "--disable-background-networking", "--disable-component-update",
];

export const launch = () =>
  chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", headless: true, args: FLAGS });

export const VIEWPORT = { width: 1400, height: 900 };
