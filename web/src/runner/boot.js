// Start one Pyodide from the self-hosted files and load the kernel into it as Pyodide packages.

/**
 * The kernel's packages, as the app's pyodide-lock.json names them (web/scripts/build.mjs): the
 * kernel's browser part (`cjudge`, `cjudge_web`) and the exercises' published files.
 */
export const KERNEL_PACKAGES = ["cjudge-browser", "cjudge-exercises"];

/**
 * Load Pyodide and the kernel's wheels through the lock file beside pyodide.mjs. In a browser
 * `loadPackage` fetches each wheel with its sha256 from the lock as the request's integrity, so a
 * tampered or stale wheel is refused; `loadPackage` only logs a failure, so it is thrown here.
 * @param {string} pyodideUrl  the folder holding pyodide.mjs, pyodide-lock.json and the wheels (ends with "/")
 */
export async function bootPython(pyodideUrl) {
  const { loadPyodide } = await import(`${pyodideUrl}pyodide.mjs`);
  const py = await loadPyodide({ indexURL: pyodideUrl, packages: [], fullStdLib: false });
  const errors = [];
  await py.loadPackage(KERNEL_PACKAGES, {
    checkIntegrity: true,
    messageCallback: () => {},
    errorCallback: (message) => errors.push(message),
  });
  const missing = KERNEL_PACKAGES.filter((name) => !py.loadedPackages[name]);
  if (missing.length) throw new Error(`the kernel did not load (${missing.join(", ")}): ${errors.join(" ")}`);
  return py;
}

/** The kernel's version (`cjudge.__version__`) in a booted Pyodide. */
export const kernelVersion = (py) => py.pyimport("cjudge").__version__;

/** Whether ranks can be suspended stacks in this engine (JSPI). */
export const hasJspi = () => typeof WebAssembly.Suspending === "function";
