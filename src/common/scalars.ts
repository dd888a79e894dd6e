export {
  DateTimeISOResolver as DateTime,
  JSONObjectResolver as JSONObject,
  JSONResolver as JSONValue,
  LocalDateResolver as LocalDate,
} from 'graphql-scalars';
