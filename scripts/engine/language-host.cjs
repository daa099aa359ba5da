// @ts-check
// The stand-in for Pulumi's Node.js language host, written in Node; the executable
// pulumi-language-nodejs beside this file runs main().
//
// Why it exists: see README.md beside this file. In short, the Go module that holds the official
// host (github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3) cannot be fetched here,
// while the engine (pkg/v3) can be built. scripts/engine.sh only uses this file when no real
// `pulumi-language-nodejs` is on PATH or next to the `pulumi` binary.
//
// Protocol, as the engine expects it of every plugin:
//   argv:   [--logtostderr] [-v=N] [--tracing URL] [--runtime nodejs] [--version] <engine-address>
//   stdout: first line is the TCP port of our gRPC server (pulumirpc.LanguageRuntime);
//           everything after it is shown by the engine as program output (stderr as errors).
//
// Run spawns `node [nodeargs] <program's @pulumi/pulumi/cmd/run> --monitor ... <entry point>`
// with the arguments and environment the official host passes (PULUMI_CONFIG,
// PULUMI_CONFIG_SECRET_KEYS, PULUMI_NODEJS_TYPESCRIPT, PULUMI_NODEJS_TSCONFIG_PATH). It does not
// proxy the resource monitor and does not serve the deprecated synchronous-invoke pipes (--sync):
// programs must use the asynchronous invoke APIs, which is all current @pulumi/pulumi does.
// GetRequiredPackages reports no packages, so the engine never tries to download plugins for a
// program; dynamic providers (pulumi-nodejs) need none.
"use strict";

/** @typedef {typeof import("@grpc/grpc-js")} Grpc */
/** @typedef {typeof import("@pulumi/pulumi/proto/language_pb")} LanguagePb */
/** @typedef {import("@pulumi/pulumi/proto/language_pb").ProgramInfo} ProgramInfo */
/** @typedef {import("@pulumi/pulumi/proto/language_pb").RunRequest} RunRequest */
/** @typedef {import("@pulumi/pulumi/proto/language_pb").InstallDependenciesRequest} InstallDependenciesRequest */
/** @typedef {import("@pulumi/pulumi/proto/language_pb").InstallDependenciesResponse} InstallDependenciesResponse */
/** @typedef {import("@pulumi/pulumi/proto/language_pb").GetProgramDependenciesRequest} GetProgramDependenciesRequest */
/** @typedef {Partial<import("@grpc/grpc-js").StatusObject>} GrpcError */
/** @typedef {{ typescript: boolean, tsconfig: string, nodeargs: string, packagemanager: string }} RuntimeOptions */
/** @typedef {{ version?: string, dependencies?: Record<string, string>, devDependencies?: Record<string, string> }} PackageJson */

/**
 * require(), typed to return unknown: each module loaded from the program's SDK is stated as this
 * checkout's copy of it.
 * @type {(id: string) => unknown}
 */
const load = require;
/**
 * JSON.parse, typed to return unknown.
 * @type {(text: string) => unknown}
 */
const parseJson = JSON.parse;

const childProcess = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");

const HOST_NAME = "pulumi-language-nodejs (pulumi-webhook-endpoints stand-in)";
// Exit code @pulumi/pulumi/cmd/run uses after it already showed the user an actionable error.
const EXIT_AFTER_USER_ACTIONABLE_MESSAGE = 32;

// ---------------------------------------------------------------------------------------------
// Command line.
/** @param {string[]} argv */
function parseArgs(argv) {
  const out = { engineAddress: "", tracing: "", runtime: "nodejs", version: false };
  for (let i = 0; i < argv.length; i++) {
    const a = /** @type {string} */ (argv[i]);
    if (!a.startsWith("-")) {
      out.engineAddress = a; // the engine passes its address last
      continue;
    }
    const m = /^--?([^=]+)(?:=(.*))?$/.exec(a);
    const name = m ? m[1] : a;
    const takeValue = () => (m && m[2] !== undefined ? m[2] : (argv[++i] ?? ""));
    switch (name) {
      case "tracing":
        out.tracing = takeValue();
        break;
      case "runtime":
        out.runtime = takeValue();
        break;
      case "root":
        takeValue();
        break;
      case "version":
        out.version = true;
        break;
      default:
        // -v=N, --logtostderr, --logflow, ...: accepted and ignored.
        break;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Locating @pulumi/pulumi (for its gRPC stubs) and the program's own SDK.
/**
 * @param {string} request
 * @param {(string | undefined)[]} dirs
 * @returns {string | undefined}
 */
function resolveFrom(request, dirs) {
  for (const d of dirs) {
    if (!d) continue;
    try {
      return require.resolve(request, { paths: [d] });
    } catch {
      // try next
    }
  }
  return undefined;
}

function sdkSearchDirs() {
  return [
    process.env.PWE_PULUMI_SDK_DIR,
    process.cwd(),
    process.env.PWE_ROOT,
    path.resolve(__dirname, "..", ".."),
  ];
}

function loadStubs() {
  const pkgJson = resolveFrom("@pulumi/pulumi/package.json", sdkSearchDirs());
  if (!pkgJson) {
    throw new Error(
      "cannot find @pulumi/pulumi (looked from $PWE_PULUMI_SDK_DIR, the working directory, $PWE_ROOT and " +
        path.resolve(__dirname, "..", "..") +
        "); run npm install",
    );
  }
  const sdkDir = path.dirname(pkgJson);
  // The program's SDK and the modules it depends on, typed as this checkout's copy of them.
  /** @param {string} m */
  const req = (m) => {
    const resolved = resolveFrom(m, [sdkDir]);
    if (!resolved) throw new Error(`cannot find ${m} from ${sdkDir}`);
    return load(resolved);
  };
  return {
    sdkDir,
    version: /** @type {PackageJson} */ (parseJson(fs.readFileSync(pkgJson, "utf8"))).version ?? "",
    grpc: /** @type {Grpc} */ (req("@grpc/grpc-js")),
    langPb: /** @type {LanguagePb} */ (load(path.join(sdkDir, "proto", "language_pb.js"))),
    langGrpc: /** @type {typeof import("@pulumi/pulumi/proto/language_grpc_pb")} */ (
      load(path.join(sdkDir, "proto", "language_grpc_pb.js"))
    ),
    pluginPb: /** @type {typeof import("@pulumi/pulumi/proto/plugin_pb")} */ (
      load(path.join(sdkDir, "proto", "plugin_pb.js"))
    ),
    emptyPb: /** @type {typeof import("google-protobuf/google/protobuf/empty_pb")} */ (
      req("google-protobuf/google/protobuf/empty_pb.js")
    ),
    hclPb: /** @type {typeof import("@pulumi/pulumi/proto/codegen/hcl_pb")} */ (
      load(path.join(sdkDir, "proto", "codegen", "hcl_pb.js"))
    ),
  };
}

// ---------------------------------------------------------------------------------------------
// Helpers mirroring the official host's behaviour.

// Runtime options from Pulumi.yaml (`runtime: {name: nodejs, options: {...}}`).
/**
 * @param {ProgramInfo | undefined} info
 * @returns {RuntimeOptions}
 */
function parseOptions(info) {
  const raw = info?.getOptions()?.toJavaScript() ?? {};
  /** @type {RuntimeOptions} */
  const opts = { typescript: true, tsconfig: "", nodeargs: "", packagemanager: "auto" };
  if (raw.typescript !== undefined) {
    if (typeof raw.typescript !== "boolean") throw new Error("typescript option must be a boolean");
    opts.typescript = raw.typescript;
  }
  if (raw.tsconfig !== undefined) {
    if (typeof raw.tsconfig !== "string") throw new Error("tsconfigpath option must be a string");
    opts.tsconfig = raw.tsconfig;
  }
  if (raw.nodeargs !== undefined) {
    if (typeof raw.nodeargs !== "string") throw new Error("nodeargs option must be a string");
    opts.nodeargs = raw.nodeargs;
  }
  if (raw.packagemanager !== undefined) {
    if (
      typeof raw.packagemanager !== "string" ||
      !["auto", "npm", "yarn", "pnpm", "bun"].includes(raw.packagemanager)
    ) {
      throw new Error(
        `packagemanager option must be one of auto, npm, yarn, pnpm or bun, got ${JSON.stringify(raw.packagemanager)}`,
      );
    }
    opts.packagemanager = raw.packagemanager;
  }
  return opts;
}

// Shell-like word splitting for `nodeargs` (quotes and backslash escapes).
/** @param {string} s */
function shellSplit(s) {
  const words = [];
  let cur = "";
  let inWord = false;
  let quote = "";
  for (let i = 0; i < s.length; i++) {
    const c = /** @type {string} */ (s[i]);
    if (quote) {
      if (c === quote) quote = "";
      else if (c === "\\" && quote === '"' && i + 1 < s.length) cur += s[++i];
      else cur += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === "\\" && i + 1 < s.length) {
      cur += s[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(cur);
      cur = "";
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (quote) throw new Error(`nodeargs: unterminated ${quote} quote`);
  if (inWord) words.push(cur);
  return words;
}

// The engine sends `<namespace>:<name>`; the SDK is given the historical `<namespace>:config:<name>`.
/** @param {RunRequest} req */
function configJSON(req) {
  /** @type {Record<string, string>} */
  const out = {};
  for (const [k, v] of req.getConfigMap().entries()) {
    const parts = k.split(":");
    if (parts.length === 2) out[`${parts[0]}:config:${parts[1]}`] = v;
    else if (parts.length === 3 && parts[1] === "config") out[k] = v;
    else
      throw new Error(
        `could not parse ${k} as a configuration key (configuration keys should be of the form \`<namespace>:<name>\`)`,
      );
  }
  return JSON.stringify(out);
}

/** @param {string} cmd */
function lookPath(cmd) {
  for (const dir of (process.env.PATH || "").split(path.delimiter)) {
    if (!dir) continue;
    const p = path.join(dir, cmd);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      if (fs.statSync(p).isFile()) return p;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * @param {string} file
 * @returns {PackageJson | undefined}
 */
function readJSON(file) {
  try {
    return /** @type {PackageJson} */ (parseJson(fs.readFileSync(file, "utf8")));
  } catch {
    return undefined;
  }
}

// The program's directory: from ProgramInfo, else the request's own field (Run and
// GetProgramDependencies send `pwd`, InstallDependencies sends `directory`), else ours.
/** @param {RunRequest | GetProgramDependenciesRequest | InstallDependenciesRequest} req */
function programDirOf(req) {
  const own = "getPwd" in req ? req.getPwd() : req.getDirectory();
  return req.getInfo()?.getProgramDirectory() || own || process.cwd();
}

// ---------------------------------------------------------------------------------------------
function serve() {
  const args = parseArgs(process.argv.slice(2));
  const stubs = loadStubs();
  if (args.version) {
    process.stdout.write(stubs.version + "\n");
    return;
  }
  // -runtime python or go: a stand-in of that language's host for code generation only (GeneratePackage), for
  // `pulumi package gen-sdk`; it runs no program.
  const codegenOnly = args.runtime !== "nodejs";
  if (codegenOnly && !["python", "go"].includes(args.runtime)) {
    process.stderr.write(`error: unsupported runtime: ${args.runtime} (this stand-in runs nodejs)\n`);
    process.exit(1);
  }
  const { grpc, langPb, langGrpc, pluginPb, emptyPb, hclPb } = stubs;
  let engineAddress = args.engineAddress;
  /** @type {Set<import("child_process").ChildProcess>} child processes started by Run, for Cancel */
  const running = new Set();

  /**
   * A handler that answers UNIMPLEMENTED: through the callback of a unary call, else as the
   * stream's error.
   * @param {string} what
   * @returns {(call: import("events").EventEmitter, callback?: (error: GrpcError) => void) => void}
   */
  const unimplemented = (what) => (call, callback) => {
    /** @type {GrpcError} */
    const err = { code: grpc.status.UNIMPLEMENTED, details: `${what} is not supported by ${HOST_NAME}` };
    if (typeof callback === "function") callback(err);
    else call.emit("error", err);
  };
  /**
   * A unary handler from a function of the request; a throw or rejection becomes UNKNOWN.
   * @template Req, Res
   * @param {(req: Req) => Res | Promise<Res>} fn
   * @returns {import("@grpc/grpc-js").handleUnaryCall<Req, Res>}
   */
  const wrap = (fn) => (call, callback) => {
    Promise.resolve()
      .then(() => fn(call.request))
      .then(
        (res) => callback(null, res),
        (/** @type {unknown} */ e) =>
          callback({ code: grpc.status.UNKNOWN, details: e instanceof Error ? e.message : String(e) }),
      );
  };

  function nodeBinary() {
    return lookPath("node") || process.execPath;
  }

  /**
   * @param {RunRequest} req
   * @returns {import("@pulumi/pulumi/proto/language_pb").RunResponse | Promise<import("@pulumi/pulumi/proto/language_pb").RunResponse>}
   */
  function run(req) {
    const response = new langPb.RunResponse();
    const fail = (/** @type {string} */ msg) => {
      response.setError(msg);
      return response;
    };
    const info = req.getInfo();
    const programDir = programDirOf(req);
    let opts;
    let nodeArgs;
    let config;
    try {
      opts = parseOptions(info);
      nodeArgs = shellSplit(opts.nodeargs);
      config = configJSON(req);
    } catch (e) {
      return fail(e instanceof Error ? e.message : String(e));
    }
    const runModule = process.env.PULUMI_LANGUAGE_NODEJS_RUN_PATH || "@pulumi/pulumi/cmd/run";
    const runPath = resolveFrom(runModule, [programDir]);
    if (!runPath) {
      return fail("It looks like the Pulumi SDK has not been installed. Have you run pulumi install?");
    }

    const argv = [...nodeArgs, runPath];
    const add = (/** @type {string} */ k, /** @type {string | undefined} */ v) => {
      if (v !== undefined && v !== null && v !== "") argv.push(`--${k}`, String(v));
    };
    add("monitor", req.getMonitorAddress());
    add("engine", engineAddress);
    add("organization", req.getOrganization());
    add("project", req.getProject());
    add("root-directory", info ? info.getRootDirectory() : "");
    add("stack", req.getStack());
    add("pwd", programDir);
    if (req.getDryrun()) argv.push("--dry-run");
    add("parallel", String(req.getParallel()));
    add("tracing", args.tracing);
    argv.push((info && info.getEntryPoint()) || req.getProgram() || ".");
    argv.push(...req.getArgsList());

    const env = { ...process.env };
    env.PULUMI_CONFIG = config;
    env.PULUMI_CONFIG_SECRET_KEYS = JSON.stringify(req.getConfigsecretkeysList());
    if (opts.typescript) env.PULUMI_NODEJS_TYPESCRIPT = "true";
    if (opts.tsconfig) env.PULUMI_NODEJS_TSCONFIG_PATH = opts.tsconfig;

    return new Promise((resolve) => {
      /** @type {import("child_process").ChildProcess} */
      let child;
      try {
        // stdout/stderr go straight to ours, which the engine shows as program output.
        child = childProcess.spawn(nodeBinary(), argv, { env, stdio: ["ignore", "inherit", "inherit"] });
      } catch (e) {
        resolve(
          fail(
            `Problem executing program (could not run language executor): ${e instanceof Error ? e.message : String(e)}`,
          ),
        );
        return;
      }
      running.add(child);
      child.on("error", (e) => {
        running.delete(child);
        resolve(fail(`Problem executing program (could not run language executor): ${e.message}`));
      });
      child.on("exit", (code, signal) => {
        running.delete(child);
        if (code === 0) resolve(response);
        else if (code === EXIT_AFTER_USER_ACTIONABLE_MESSAGE) {
          response.setBail(true);
          resolve(response);
        } else if (code !== null) resolve(fail(`Program exited with non-zero exit code: ${code}`));
        else resolve(fail(`Program exited unexpectedly: signal: ${signal}`));
      });
    });
  }

  /**
   * @param {RuntimeOptions} opts
   * @param {string} dir
   */
  function packageManagerFor(opts, dir) {
    let pm = opts.packagemanager;
    if (pm === "auto") {
      if (fs.existsSync(path.join(dir, "pnpm-lock.yaml"))) pm = "pnpm";
      else if (fs.existsSync(path.join(dir, "yarn.lock"))) pm = "yarn";
      else if (fs.existsSync(path.join(dir, "bun.lockb")) || fs.existsSync(path.join(dir, "bun.lock")))
        pm = "bun";
      else pm = "npm";
    }
    return pm;
  }

  /** @param {import("@grpc/grpc-js").ServerWritableStream<InstallDependenciesRequest, InstallDependenciesResponse>} call */
  function installDependencies(call) {
    const req = call.request;
    const dir = programDirOf(req);
    /**
     * @param {string | Buffer | undefined} stdout
     * @param {string | Buffer} [stderr]
     */
    const send = (stdout, stderr) => {
      const r = new langPb.InstallDependenciesResponse();
      if (stdout) r.setStdout(Buffer.from(stdout));
      if (stderr) r.setStderr(Buffer.from(stderr));
      call.write(r);
    };
    if (!fs.existsSync(path.join(dir, "package.json"))) {
      send(`No package.json in ${dir}: nothing to install\n`);
      call.end();
      return;
    }
    let pm;
    try {
      pm = packageManagerFor(parseOptions(req.getInfo()), dir);
    } catch (e) {
      call.emit("error", {
        code: grpc.status.INVALID_ARGUMENT,
        details: e instanceof Error ? e.message : String(e),
      });
      return;
    }
    send("Installing dependencies...\n\n");
    const child = childProcess.spawn(pm, ["install"], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.on("data", (/** @type {Buffer} */ d) => send(d));
    child.stderr.on("data", (/** @type {Buffer} */ d) => send(undefined, d));
    child.on("error", (e) =>
      call.emit("error", { code: grpc.status.UNKNOWN, details: `${pm} install: ${e.message}` }),
    );
    child.on("close", (code) => {
      if (code === 0) {
        send("Finished installing dependencies\n\n");
        call.end();
      } else {
        call.emit("error", { code: grpc.status.UNKNOWN, details: `${pm} install exited with code ${code}` });
      }
    });
  }

  /** @param {GetProgramDependenciesRequest} req */
  function programDependencies(req) {
    const dir = programDirOf(req);
    const pkg = readJSON(path.join(dir, "package.json")) || {};
    const names = Object.keys({ ...(pkg.dependencies || {}), ...(pkg.devDependencies || {}) }).sort();
    const res = new langPb.GetProgramDependenciesResponse();
    for (const name of names) {
      const pj = resolveFrom(`${name}/package.json`, [dir]);
      const installed = pj ? readJSON(pj) : undefined;
      const d = new langPb.DependencyInfo();
      d.setName(name);
      d.setVersion(installed && installed.version ? installed.version : "");
      res.addDependencies(d);
    }
    return res;
  }

  function about() {
    const res = new langPb.AboutResponse();
    const node = nodeBinary();
    res.setExecutable(node);
    try {
      res.setVersion(childProcess.execFileSync(node, ["--version"], { encoding: "utf8" }).trim());
    } catch {
      // leave empty, like the official host
    }
    res.getMetadataMap().set("packagemanager", "npm");
    res.getMetadataMap().set("languagehost", HOST_NAME);
    return res;
  }

  /**
   * GenerateProgram (the code `pulumi import` prints or writes with --out, and `pulumi convert`): the official
   * host binds the PCL program with the CLI's schema loader and runs github.com/pulumi/pulumi/pkg/v3/codegen/nodejs;
   * so does scripts/sdkgen's -program mode, which $PWE_SDKGEN names (built by `bash scripts/sdk-check.sh
   * --generator-path`). Without it, this stand-in does not support the call.
   * @param {import("@pulumi/pulumi/proto/language_pb").GenerateProgramRequest} req
   */
  function generateProgram(req) {
    const sdkgen = process.env.PWE_SDKGEN;
    if (!sdkgen)
      throw new Error(
        `GenerateProgram is not supported by ${HOST_NAME} unless $PWE_SDKGEN names scripts/sdkgen built`,
      );
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pwe-program-"));
    try {
      for (const [name, text] of req.getSourceMap().entries())
        fs.writeFileSync(path.join(dir, path.basename(name)), text);
      const args = ["-program", dir, "-lang", "nodejs", "-loader", req.getLoaderTarget()];
      const printed = childProcess.execFileSync(sdkgen, req.getStrict() ? [...args, "-strict"] : args, {
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
      });
      const generated =
        /** @type {{ files: Record<string, string>, diagnostics: { severity: string, summary: string, detail?: string }[] }} */ (
          parseJson(printed)
        );
      const res = new langPb.GenerateProgramResponse();
      for (const [name, base64] of Object.entries(generated.files))
        res.getSourceMap().set(name, Buffer.from(base64, "base64"));
      for (const d of generated.diagnostics) {
        const diagnostic = new hclPb.Diagnostic();
        diagnostic.setSeverity(
          d.severity === "error"
            ? hclPb.DiagnosticSeverity.DIAG_ERROR
            : hclPb.DiagnosticSeverity.DIAG_WARNING,
        );
        diagnostic.setSummary(d.summary);
        diagnostic.setDetail(d.detail ?? "");
        res.addDiagnostics(diagnostic);
      }
      return res;
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  /**
   * GeneratePackage (`pulumi package gen-sdk`, `pulumi package add`): the schema the CLI bound is generated with
   * the generator the official host links, called as it calls it, by scripts/sdkgen's -host-dir mode ($PWE_SDKGEN),
   * into the directory the CLI names; extra files (overlays) are written beside what it generates.
   * @param {import("@pulumi/pulumi/proto/language_pb").GeneratePackageRequest} req
   */
  function generatePackage(req) {
    const sdkgen = process.env.PWE_SDKGEN;
    if (!sdkgen)
      throw new Error(
        `GeneratePackage is not supported by ${HOST_NAME} unless $PWE_SDKGEN names scripts/sdkgen built`,
      );
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pwe-package-"));
    try {
      const schema = path.join(dir, "schema.json");
      fs.writeFileSync(schema, req.getSchema());
      const generate = ["-schema", schema, "-host-dir", req.getDirectory(), "-lang", args.runtime];
      childProcess.execFileSync(sdkgen, req.getLocal() ? [...generate, "-local"] : generate, {
        stdio: ["ignore", "ignore", "pipe"],
      });
      for (const [name, contents] of req.getExtraFilesMap().entries()) {
        fs.mkdirSync(path.dirname(path.join(req.getDirectory(), name)), { recursive: true });
        fs.writeFileSync(path.join(req.getDirectory(), name), contents);
      }
      return new langPb.GeneratePackageResponse();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  /** @type {Record<string, import("@grpc/grpc-js").UntypedHandleCall>} */
  const impl = {
    handshake: wrap(
      (/** @type {import("@pulumi/pulumi/proto/language_pb").LanguageHandshakeRequest} */ req) => {
        engineAddress = req.getEngineAddress() || engineAddress;
        return new langPb.LanguageHandshakeResponse();
      },
    ),
    getRequiredPlugins: wrap(() => new langPb.GetRequiredPluginsResponse()),
    getRequiredPackages: wrap(() => new langPb.GetRequiredPackagesResponse()),
    run: wrap(run),
    getPluginInfo: wrap(() => {
      const r = new pluginPb.PluginInfo();
      r.setVersion(stubs.version);
      return r;
    }),
    installDependencies: installDependencies,
    runtimeOptionsPrompts: wrap(() => new langPb.RuntimeOptionsResponse()),
    template: wrap(() => new langPb.TemplateResponse()),
    about: wrap(about),
    getProgramDependencies: wrap(programDependencies),
    runPlugin: unimplemented("RunPlugin"),
    generateProgram: wrap(generateProgram),
    generateProject: unimplemented("GenerateProject"),
    generatePackage: wrap(generatePackage),
    pack: unimplemented("Pack"),
    link: unimplemented("Link"),
    cancel: wrap(() => {
      for (const child of running) {
        child.kill("SIGINT");
        setTimeout(() => child.exitCode === null && child.kill("SIGKILL"), 5000).unref();
      }
      return new emptyPb.Empty();
    }),
  };
  // Only register what this version of the stubs defines.
  const service = langGrpc.LanguageRuntimeService;
  /** @type {import("@grpc/grpc-js").UntypedServiceImplementation} */
  const handlers = {};
  const served = codegenOnly ? ["handshake", "getPluginInfo", "generatePackage"] : Object.keys(impl);
  for (const name of Object.keys(service)) {
    handlers[name] = (served.includes(name) && impl[name]) || unimplemented(name);
  }

  const server = new grpc.Server({
    "grpc.max_receive_message_length": 400 * 1024 * 1024,
    "grpc.max_send_message_length": 400 * 1024 * 1024,
  });
  server.addService(service, handlers);
  server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, port) => {
    if (err) {
      process.stderr.write(`could not start language host RPC server: ${err.message}\n`);
      process.exit(1);
    }
    process.stdout.write(`${port}\n`);
  });

  const shutdown = (/** @type {NodeJS.Signals} */ signal) => {
    for (const child of running) child.kill(signal);
    server.forceShutdown();
    process.exit(0);
  };
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  // The official host health-checks the engine and exits when it is gone; we watch our parent.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) shutdown("SIGTERM");
  }, 1000).unref();
}

/** Serves the engine until it goes away; a failure to start is printed and exits 1. */
function main() {
  try {
    serve();
  } catch (e) {
    process.stderr.write(`${HOST_NAME}: ${e instanceof Error && e.stack ? e.stack : String(e)}\n`);
    process.exit(1);
  }
}

module.exports = { main };
