// A tiny element builder: h("tag.class", {attrs}, ...children).
export function h(spec, attrs = {}, ...children) {
  const [tag, ...classes] = spec.split(".");
  const el = document.createElement(tag);
  if (classes.length) el.className = classes.join(" ");
  for (const [name, value] of Object.entries(attrs)) {
    if (name.startsWith("on")) el.addEventListener(name.slice(2), value);
    else if (value !== false && value != null) el.setAttribute(name, value === true ? "" : value);
  }
  el.append(...children.flat().filter((c) => c != null && c !== false));
  return el;
}
