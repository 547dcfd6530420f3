/** No input: send no body or an empty JSON object (unknown fields are refused). */
export class EmptyBodyDto {}
