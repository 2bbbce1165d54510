// Start one Pyodide from the self-hosted files and unpack the kernel into it.

/** The folder the kernel zip is unpacked into; it is put first on sys.path. */
export const KERNEL_HOME = "/home/pyodide/kernel";

/**
 * @param {string} pyodideUrl  the folder holding pyodide.mjs and its files (ends with "/")
 * @param {ArrayBuffer|Uint8Array|Promise<ArrayBuffer>} kernelZip  (a promise lets it download meanwhile)
 */
export async function bootPython(pyodideUrl, kernelZip) {
  const { loadPyodide } = await import(`${pyodideUrl}pyodide.mjs`);
  const py = await loadPyodide({ indexURL: pyodideUrl, packages: [], fullStdLib: false });
  kernelZip = await kernelZip;
  py.FS.mkdirTree(KERNEL_HOME);
  py.unpackArchive(kernelZip, "zip", { extractDir: KERNEL_HOME });
  py.runPython(`import sys; sys.path.insert(0, ${JSON.stringify(KERNEL_HOME)})`);
  return py;
}

/** Whether ranks can be suspended stacks in this engine (JSPI). */
export const hasJspi = () => typeof WebAssembly.Suspending === "function";
