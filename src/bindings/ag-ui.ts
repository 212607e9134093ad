/**
 * `argstream/ag-ui`: argstream's events as AG-UI's event stream, for an AG-UI page
 * (`@ag-ui/client`'s `HttpAgent`, and the UIs built on it) served by an argstream server. No AG-UI
 * package is needed: the events are written as AG-UI 1.0 defines them. (Reading an AG-UI agent's
 * stream is `new ProviderEventStream({ provider: 'ag-ui' })`, in the main entry.)
 *
 * @module
 */
export { AG_UI_HEADERS, AG_UI_TOOL_INPUT, AgUiEncoder, AgUiEventEncoder } from '../relay/ag-ui-encoder.ts';
export type { AgUiEncoderOptions, AgUiEvent, AgUiTokenUsage } from '../relay/ag-ui-encoder.ts';
