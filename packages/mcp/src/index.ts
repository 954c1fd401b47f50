export { contactUrlOf, type NerkhMcpOptions, nerkhMcpServerFactory, tools } from './nerkh-mcp-server.ts';
export { type HttpEndpoint, serveHttp, serveStdio } from './transports.ts';
