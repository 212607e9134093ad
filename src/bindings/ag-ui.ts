/**
 * `argstream/ag-ui`: argstream's events as AG-UI's event stream, for an AG-UI page
 * (`@ag-ui/client`'s `HttpAgent`, and the UIs built on it) served by an argstream server. No AG-UI
 * package is needed: the events are written as AG-UI 1.0 defines them. And `AG_UI_PROVIDER`, the
 * `'ag-ui'` provider that reads an AG-UI agent's stream: `new ProviderEventStream({ provider:
 * 'ag-ui' })` loads it by name; `new ProviderEventDecoder({ provider: AG_UI_PROVIDER })` (a
 * decoder cannot wait for a module) and a page that bundles it statically import it from here.
 *
 * @module
 */
export { AG_UI_PROVIDER } from '../providers/ag-ui.ts';
export type { ProviderDefinition } from '../providers/adapter.ts';
export { AG_UI_HEADERS, AG_UI_TOOL_INPUT, AgUiEncoder, AgUiEventEncoder } from '../relay/ag-ui-encoder.ts';
export type { AgUiEncoderOptions, AgUiEvent, AgUiTokenUsage } from '../relay/ag-ui-encoder.ts';
