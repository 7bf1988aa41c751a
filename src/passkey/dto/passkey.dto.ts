import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, IsString, Matches, MaxLength, MinLength, ValidateBy } from 'class-validator';

import { Optional } from '../../common/optional';
import { isAssertionShape, isAttestationShape } from '../webauthn-shape';

/** A name for people: 1 to 64 characters, something besides spaces, no control or format characters. */
const PASSKEY_NAME = /^(?=.*\S)[^\p{Cc}\p{Cf}]{1,64}$/u;
const NAME_RULE = '$property must be 1 to 64 characters without control characters';

const Attestation = () =>
  ValidateBy(
    { name: 'attestation', validator: { validate: isAttestationShape } },
    { message: '$property must be the RegistrationResponseJSON of navigator.credentials.create()' },
  );
const Assertion = () =>
  ValidateBy(
    { name: 'assertion', validator: { validate: isAssertionShape } },
    { message: '$property must be the AuthenticationResponseJSON of navigator.credentials.get()' },
  );

const RESPONSE_DOC = {
  type: 'object',
  additionalProperties: true,
} as const;

export class PasskeyRegisterDto {
  @ApiProperty({ ...RESPONSE_DOC, description: 'RegistrationResponseJSON from navigator.credentials.create()' })
  @IsObject()
  @Attestation()
  response: Record<string, unknown>;

  @ApiPropertyOptional({ description: 'a name for the passkey; default: the browser and system it was made on' })
  @Optional()
  @IsString()
  @Matches(PASSKEY_NAME, { message: NAME_RULE })
  name?: string;
}

export class PasskeyIdDto {
  @ApiProperty({ description: 'id from /sys/me/passkey/list' })
  @IsString()
  @MaxLength(36)
  id: string;
}

export class PasskeyRenameDto extends PasskeyIdDto {
  @ApiProperty({ description: 'the new name' })
  @IsString()
  @Matches(PASSKEY_NAME, { message: NAME_RULE })
  name: string;
}

export class PasskeyLoginOptionsDto {
  @ApiPropertyOptional({ description: 'account name, mobile or e-mail; absent: a discoverable (usernameless) login' })
  @Optional()
  @IsString()
  @MinLength(1)
  @MaxLength(128)
  account?: string;
}

export class PasskeyLoginDto {
  @ApiProperty({ description: 'from /sys/login/passkey/options; single use, 5 minutes' })
  @IsString()
  @MinLength(16)
  @MaxLength(128)
  @Matches(/^[A-Za-z0-9_-]+$/, { message: '$property must be the challengeId of /sys/login/passkey/options' })
  challengeId: string;

  @ApiProperty({ ...RESPONSE_DOC, description: 'AuthenticationResponseJSON from navigator.credentials.get()' })
  @IsObject()
  @Assertion()
  response: Record<string, unknown>;
}

export class PasskeyMfaOptionsDto {
  @ApiProperty({ description: 'from the login result' })
  @IsString()
  @MinLength(16)
  @MaxLength(128)
  @Matches(/^[A-Za-z0-9_-]+$/, { message: '$property must be the mfaToken of the login result' })
  mfaToken: string;
}

/** OpenAPI only. */
export class PasskeyCreatedDto {
  @ApiProperty() id: string;
  @ApiProperty() name: string;
}

/** OpenAPI only. */
export class PasskeyRowDto {
  @ApiProperty() id: string;
  @ApiProperty() name: string;
  @ApiProperty({ type: String, format: 'date-time' }) createTime: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) lastUsedTime: string | null;
}

/** OpenAPI only: PublicKeyCredentialCreationOptionsJSON / RequestOptionsJSON, as @simplewebauthn/browser takes them. */
export class PasskeyOptionsDto {
  @ApiProperty({ description: 'base64url' }) challenge: string;
  @ApiPropertyOptional({ description: 'login only: send back with the answer' }) challengeId?: string;
}
