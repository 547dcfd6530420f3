import { ApiProperty } from '@nestjs/swagger';

/** What both health answers check. */
export class DependencyChecksDto {
  @ApiProperty({ enum: ['up', 'down'] })
  database!: 'up' | 'down';

  @ApiProperty({ enum: ['up', 'down'] })
  redis!: 'up' | 'down';
}

export class HealthChecksDto extends DependencyChecksDto {
  /**
   * Video processing: `up` when ffprobe and ffmpeg answer (checked once at start-up), `down` when they
   * do not (video uploads are refused; images are not affected, so `status` does not depend on it),
   * `unknown` while the first check runs.
   */
  @ApiProperty({ enum: ['up', 'down', 'unknown'] })
  video!: 'up' | 'down' | 'unknown';
}

export class HealthDto {
  @ApiProperty({ enum: ['ok', 'error'] })
  status!: 'ok' | 'error';

  checks!: HealthChecksDto;
}

export class ReadinessChecksDto extends DependencyChecksDto {
  /** Media storage (the local directory is writable, or the S3 bucket answers with our credentials). */
  @ApiProperty({ enum: ['up', 'down'] })
  storage!: 'up' | 'down';
}

export class ReadinessDto {
  /** `ok` when every dependency is up; `error` (HTTP 503) otherwise, or while the process shuts down. */
  @ApiProperty({ enum: ['ok', 'error'] })
  status!: 'ok' | 'error';

  checks!: ReadinessChecksDto;
}

export class LivenessDto {
  /** Always `ok`: the process answers HTTP. */
  @ApiProperty({ enum: ['ok'] })
  status!: 'ok';
}
