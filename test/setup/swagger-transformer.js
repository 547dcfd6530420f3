/** Runs the @nestjs/swagger CLI plugin under ts-jest, so tests see the same OpenAPI document as `nest build`. */
const transformer = require('@nestjs/swagger/plugin');

module.exports.name = 'nestjs-swagger-transformer';
module.exports.version = 1;
module.exports.factory = (cs) =>
  transformer.before(
    {
      classValidatorShim: true,
      introspectComments: true,
      dtoFileNameSuffix: ['.dto.ts', '.entity.ts', '.credentials.ts'],
    },
    cs.program,
  );
