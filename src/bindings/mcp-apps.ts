/**
 * `argstream/mcp-apps`: a tool call's input as the notifications an MCP Apps host sends the
 * call's view (`ui/notifications/tool-input-partial`, `tool-input`, `tool-cancelled`), parsed once,
 * linearly. It imports nothing of MCP: the host hands the notifications to its own `AppBridge` or
 * transport.
 *
 * @module
 */
export { ToolInputNotificationCore, ToolInputNotificationStream } from '../mcp-apps/tool-input-notification-stream.ts';
export type {
  ToolCancelledNotification,
  ToolInputCompleteNotification,
  ToolInputNotification,
  ToolInputNotificationStreamOptions,
  ToolInputPartialNotification,
} from '../mcp-apps/tool-input-notification-stream.ts';
