/**
 * A real MCP Apps view and host in Node: `@modelcontextprotocol/ext-apps`' `App` (the iframe's
 * side) and `AppBridge` (the host's), connected by the MCP SDK's `InMemoryTransport` pair instead
 * of `postMessage` (which needs windows), through the spec's `ui/initialize` handshake. What the
 * view's `ontoolinputpartial`, `ontoolinput` and `ontoolcancelled` handlers receive is recorded,
 * with every error the view's protocol reports (a notification its schemas refuse is one).
 */
import { InMemoryTransport } from '@modelcontextprotocol/client';
import { App } from '@modelcontextprotocol/ext-apps';
import { AppBridge } from '@modelcontextprotocol/ext-apps/app-bridge';

/** What the view's handlers received, in order. */
export type Received =
  | { readonly kind: 'partial'; readonly arguments: unknown }
  | { readonly kind: 'input'; readonly arguments: unknown }
  | { readonly kind: 'cancelled'; readonly reason: unknown };

export interface ConnectedApp {
  readonly app: App;
  readonly bridge: AppBridge;
  /** The host's end of the transport: what it sends, the view receives. */
  readonly host: InMemoryTransport;
  readonly received: Received[];
  /** Errors the view's protocol reported (`onerror`). */
  readonly errors: unknown[];
  /** Wait until the view has handled what was sent (its handlers run after a microtask or two). */
  settle(): Promise<void>;
  close(): Promise<void>;
}

/** A view and its host, connected and initialized (`ui/initialize` → `ui/notifications/initialized`). */
export async function connectApp(): Promise<ConnectedApp> {
  const [viewTransport, hostTransport] = InMemoryTransport.createLinkedPair();
  const bridge = new AppBridge(null, { name: 'argstream-test-host', version: '1.0.0' }, {});
  // autoResize measures the document: there is none in Node.
  const app = new App({ name: 'argstream-test-view', version: '1.0.0' }, {}, { autoResize: false });
  const received: Received[] = [];
  const errors: unknown[] = [];
  app.ontoolinputpartial = (params) => received.push({ kind: 'partial', arguments: params.arguments });
  app.ontoolinput = (params) => received.push({ kind: 'input', arguments: params.arguments });
  app.ontoolcancelled = (params) => received.push({ kind: 'cancelled', reason: params.reason });
  app.onerror = (error) => errors.push(error);
  const initialized = new Promise<void>((resolve) => {
    bridge.oninitialized = () => resolve();
  });
  await bridge.connect(hostTransport);
  await app.connect(viewTransport);
  await initialized;
  return {
    app,
    bridge,
    host: hostTransport,
    received,
    errors,
    settle: () => new Promise((resolve) => setTimeout(resolve, 0)),
    close: async () => {
      await app.close();
      await bridge.close();
    },
  };
}
