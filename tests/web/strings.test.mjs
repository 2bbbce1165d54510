// The web app's string catalog (web/src/app/strings.js): English and Chinese say the same things.
import assert from "node:assert/strict";
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

test("keys are bare (the exercise page) or under a known namespace", () => {
  for (const key of Object.keys(STRINGS.en)) assert.match(key, /^((course|queue|password|zxcvbn)\.)?\w+$/, key);
  assert.ok(Object.keys(STRINGS.en).some((k) => k.startsWith("course.")), "the course page's strings are in the catalog");
});
