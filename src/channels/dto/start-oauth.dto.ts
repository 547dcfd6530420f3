import { IsOptional, IsString, MaxLength } from 'class-validator';

export class StartOAuthDto {
  /**
   * Where the browser is sent after the callback, with `channelId` (or `error`) in the query. Must be
   * on PUBLIC_BASE_URL's origin or one listed in OAUTH_REDIRECT_ORIGINS. Without it the callback
   * shows a small "connected" page.
   */
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  redirectUri?: string;
}
