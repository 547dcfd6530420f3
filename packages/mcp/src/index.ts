export { apiBaseUrl, createServer, TOOLS, type PackagedTool, type ServerOptions } from './server';
