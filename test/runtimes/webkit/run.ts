/**
 * WebKit runner (the engine of Safari): Debian's WebKitGTK. Its MiniBrowser has no headless mode,
 * so the runner starts three processes, each in a process group of its own:
 *
 * 1. `Xvfb` on a free display (`-displayfd`: the server picks one and says which);
 * 2. `WebKitWebDriver` (package webkit2gtk-driver) on a free loopback port, on that display;
 * 3. MiniBrowser (`--automation`), started by the driver when `selenium-webdriver` asks it for a
 *    session: `Builder().usingServer(…)` with the capability `webkitgtk:browserOptions`, so
 *    Selenium Manager never looks for (or downloads) a browser or a driver.
 *
 * Then it opens the page the other browsers run (`browserRunner`, harness.ts). `close()` ends the
 * session and kills MiniBrowser, WebKitWebDriver and Xvfb by pid (and their groups), whatever
 * happened before: a check that failed or hung, a driver that never answered.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { browserRunner, fetchWhenUp, freePort, spawnGroup, waitForGone, withTimeout, type BrowserSession, type GroupProcess } from '../harness.ts';

/** WebKitWebDriver: `WEBKIT_WEBDRIVER_PATH`, or Debian's /usr/bin/WebKitWebDriver. */
export function webkitDriverPath(): string {
  return process.env['WEBKIT_WEBDRIVER_PATH'] ?? '/usr/bin/WebKitWebDriver';
}

/**
 * MiniBrowser: `MINIBROWSER_PATH`, or where libwebkit2gtk-4.1-0 puts it (Debian's multiarch
 * directory; /usr/libexec on Fedora and Arch).
 */
export function miniBrowserPath(): string {
  const fromEnv = process.env['MINIBROWSER_PATH'];
  if (fromEnv !== undefined) return fromEnv;
  const multiarch = { x64: 'x86_64-linux-gnu', arm64: 'aarch64-linux-gnu' }[process.arch as string] ?? `${process.arch}-linux-gnu`;
  const candidates = [`/usr/lib/${multiarch}/webkit2gtk-4.1/MiniBrowser`, '/usr/libexec/webkit2gtk-4.1/MiniBrowser'];
  return candidates.find((path) => existsSync(path)) ?? (candidates[0] as string);
}

const XVFB = '/usr/bin/Xvfb';

/** Why WebKit cannot run here (and how to install it), or `undefined` when it can. */
export function webkitMissing(): string | undefined {
  const absent = [webkitDriverPath(), miniBrowserPath(), XVFB].filter((path) => !existsSync(path));
  if (absent.length === 0) return undefined;
  return `no ${absent.join(', ')}: install WebKitGTK's WebDriver (it brings MiniBrowser) and Xvfb (Debian/Ubuntu: \`apt-get install -y webkit2gtk-driver xvfb\`), or set WEBKIT_WEBDRIVER_PATH and MINIBROWSER_PATH`;
}

/** The pids whose parent is `pid` (Linux /proc). */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // /proc/<pid>/stat: "pid (comm) state ppid …"; comm may hold spaces and parentheses.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) children.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return children;
}

/** The display number Xvfb writes to fd 3 once it listens (`-displayfd 3`). */
function displayOf(xvfb: GroupProcess): Promise<string> {
  const fd3 = xvfb.child.stdio[3] as Readable | null | undefined;
  if (fd3 === null || fd3 === undefined) return Promise.reject(new Error('Xvfb: no pipe on fd 3'));
  return withTimeout(
    new Promise<string>((resolve, reject) => {
      let text = '';
      fd3.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk;
        if (text.includes('\n')) resolve(text.trim());
      });
      xvfb.child.once('exit', (code) => reject(new Error(`Xvfb exited (code ${code}) before it listened:\n${xvfb.output()}`)));
    }),
    10_000,
    'Xvfb saying which display it listens on',
  );
}

/**
 * MiniBrowser under WebKitWebDriver on a private Xvfb display, with one page. `close()` stops all
 * three by pid.
 */
export async function launchWebKit(): Promise<BrowserSession> {
  const { Builder, By } = await import('selenium-webdriver');
  const started: GroupProcess[] = [];
  let miniBrowser: number[] = [];
  let driver: import('selenium-webdriver').WebDriver | undefined;
  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= (async () => {
      try {
        if (driver !== undefined) await withTimeout(driver.quit(), 10_000, 'ending the WebKit session').catch(() => {});
      } finally {
        // MiniBrowser by pid (it is in the driver's group too, but may have left it), then the driver, then Xvfb.
        for (const pid of miniBrowser) killProcess(pid);
        for (const child of started.reverse()) await child.stop();
        for (const pid of miniBrowser) await waitForGone(pid, 5_000);
      }
    })());
  try {
    const xvfb = spawnGroup(XVFB, ['-displayfd', '3', '-nolisten', 'tcp', '-screen', '0', '1280x1024x24'], { extraFds: 1, terminateFirst: true });
    started.push(xvfb);
    const display = await displayOf(xvfb);
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env, DISPLAY: `:${display}`, GDK_BACKEND: 'x11', NO_AT_BRIDGE: '1' };
    delete env['WAYLAND_DISPLAY'];
    const webDriver = spawnGroup(webkitDriverPath(), [`--port=${port}`, '--host=127.0.0.1'], { env });
    started.push(webDriver);
    const server = `http://127.0.0.1:${port}`;
    await fetchWhenUp(`${server}/status`, 10_000, webDriver.alive).catch((error: unknown) => {
      throw new Error(`WebKitWebDriver did not start: ${String(error)}\n${webDriver.output()}`);
    });
    const session = new Builder()
      .disableEnvironmentOverrides()
      .usingServer(server)
      .withCapabilities({ browserName: 'MiniBrowser', 'webkitgtk:browserOptions': { binary: miniBrowserPath(), args: ['--automation'] } })
      .build();
    driver = session;
    await withTimeout(session.getSession(), 30_000, 'WebKitWebDriver starting MiniBrowser').catch((error: unknown) => {
      throw new Error(`${String(error)}\n${webDriver.output()}`);
    });
    miniBrowser = childrenOf(webDriver.pid);
    const capabilities = await session.getCapabilities();
    const version = `WebKitGTK ${String(capabilities.get('browserVersion'))}`;
    return {
      version,
      goto: async (url) => withTimeout(session.get(url), 30_000, `WebKit loading ${url}`),
      // WebDriver's Execute Script awaits a promise the script returns.
      evaluate: (fn) => withTimeout(session.executeScript(`return (${fn.toString()})();`), 30_000, 'a script in WebKit') as never,
      click: async (selector) => withTimeout(session.findElement(By.css(selector)).then((element) => element.click()), 30_000, `WebKit clicking ${selector}`),
      problems: () => [],
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** SIGKILL one process by pid; one that is gone already is not an error. */
function killProcess(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

export const webkit = browserRunner(launchWebKit, webkitMissing);
