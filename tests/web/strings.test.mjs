// The web app's string catalog (web/src/app/strings.js): English and Chinese say the same things.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { STRINGS } from "../../web/src/app/strings.js";

const placeholders = (text) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

test("English and Chinese have the same keys, each with the same placeholders", () => {
  assert.deepEqual(Object.keys(STRINGS.zh).sort(), Object.keys(STRINGS.en).sort());
  for (const [key, en] of Object.entries(STRINGS.en)) {
    assert.deepEqual(placeholders(STRINGS.zh[key]), placeholders(en), `placeholders of ${key}`);
    assert.ok(en.trim() && STRINGS.zh[key].trim(), `${key} is not empty`);
  }
});

test("every key is under a namespace: no bare keys", () => {
  for (const key of Object.keys(STRINGS.en)) assert.match(key, /^[a-z]\w*(\.\w+)+$/, key);
  for (const ns of ["exercise", "course", "queue"]) {
    assert.ok(Object.keys(STRINGS.en).some((k) => k.startsWith(`${ns}.`)), `the ${ns} strings are in the catalog`);
  }
});

test("every key the exercise page names is in the catalog", () => {
  const app = new URL("../../web/src/app/", import.meta.url);
  const named = [];
  for (const file of readdirSync(app).filter((f) => f.endsWith(".js") && f !== "strings.js")) {
    const text = readFileSync(new URL(file, app), "utf8");
    for (const m of text.matchAll(/["'`]((?:exercise|queue)\.[\w.]+)["'`]/g)) named.push([file, m[1]]);
    // t("key") anywhere but on the course page, whose `t` adds "course." itself
    if (file !== "course.js") for (const m of text.matchAll(/\bt(?:\.has)?\("([^"]*)"/g)) named.push([file, m[1]]);
  }
  const html = readFileSync(new URL("../index.html", app), "utf8");
  for (const m of html.matchAll(/data-i18n(?:-label)?="([^"]*)"/g)) named.push(["index.html", m[1]]);
  assert.ok(named.length > 100, `${named.length} keys found: the pattern still matches the code`);
  for (const [file, key] of named) assert.ok(key in STRINGS.en, `${file} names ${key}, not in the catalog`);
});
