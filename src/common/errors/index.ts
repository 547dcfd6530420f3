export * from './app-error';
export * from './all-exceptions.filter';
export * from './error-response.dto';
export * from './error-format';
