import type { GraphQLScalarType } from 'graphql';
import { Field, Float, ID, InputType, Int, ObjectType, registerEnumType, type ClassType } from 'type-graphql';
import { type AnyModel, type Attribute, type EnumObject, enumObject } from '../infra/dynamo/entity';
import { Node } from './node.type';
import { Connection } from './pagination';
import { DateTime, JSONValue, LocalDate } from './scalars';
import { Versioned } from './versioned.type';

/*
 * The GraphQL types of a declared entity, made from its declaration the way type-graphql's
 * generic-types example makes classes at run time: the object type (a Node with its key values and
 * attributes), its connection, the create and update inputs and the status enum. A feature whose
 * entity needs nothing else uses these instead of writing the classes by hand.
 */

const upperFirst = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** The GraphQL name of an enum attribute's type: `MilestoneStatus` for Milestone's `status`. */
const enumName = (model: AnyModel, attribute: string) => `${model.type}${upperFirst(attribute)}`;

const registered = new Set<string>();

/**
 * Registers the GraphQL enum of an enum attribute (the status attribute's description gives the
 * transitions) and returns its object, which type-graphql knows it by: call it once per enum.
 */
export function enumOf<const V extends string>(
  model: AnyModel,
  attribute: string,
  values: readonly V[],
  name = enumName(model, attribute),
  valueDescriptions: Partial<Record<V, string>> = {},
): EnumObject<V> {
  const made = enumObject(values);
  registerEnumOf(model, attribute, made, name, valueDescriptions);
  return made;
}

/**
 * Registers `made`, the enum object of a model's enum attribute that its code already holds, as
 * the GraphQL enum `name`, described from the declaration as enumOf does: call it once per enum.
 */
export function registerEnumOf(
  model: AnyModel,
  attribute: string,
  made: Record<string, string>,
  name: string,
  valueDescriptions: Partial<Record<string, string>> = {},
): void {
  if (registered.has(name)) throw new Error(`The enum ${name} is registered twice.`);
  registered.add(name);
  const values = Object.values(made);
  const isStatus = model.status?.attribute === attribute;
  // A status enum describes its machine; any other enum says what its attribute holds.
  const description = isStatus ? `Transitions: ${model.describeTransitions()}.` : model.attributes[attribute]?.description;
  // What each value means: a status machine's declared descriptions, else the caller's.
  const meanings: Partial<Record<string, string>> = isStatus ? { ...model.status?.descriptions, ...valueDescriptions } : valueDescriptions;
  const valuesConfig = Object.fromEntries(values.map((value) => [value.toUpperCase(), { description: meanings[value] }]));
  // The same object, seen by its string keys, so the values' configuration can be built from them.
  registerEnumType(made, { name, description, valuesConfig });
}

/** The GraphQL type of one attribute; `enums` holds the enum objects made for this model so far. */
function typeOf(
  model: AnyModel,
  name: string,
  attribute: Attribute,
  enums: Map<string, object>,
): () => GraphQLScalarType | object | [GraphQLScalarType] {
  switch (attribute.kind) {
    case 'id':
      return () => ID;
    case 'int':
      return () => Int;
    case 'float':
      return () => Float;
    case 'boolean':
      return () => Boolean;
    case 'date':
      return () => LocalDate;
    case 'dateTime':
      return () => DateTime;
    case 'json':
      return () => JSONValue;
    case 'strings':
      return () => [String];
    case 'enum': {
      let type = enums.get(name);
      if (!type) enums.set(name, (type = enumOf(model, name, attribute.values ?? [])));
      return () => type;
    }
    default:
      return () => String;
  }
}

/** The attributes of a model with the status attribute among them, in declaration order. */
function attributesOf(model: AnyModel): [string, Attribute][] {
  const declared: [string, Attribute][] = Object.entries(model.attributes);
  const status = model.status;
  const description = `Where it is: see ${model.type}${upperFirst(status?.attribute ?? '')} for the transitions.`;
  return status ? [...declared, [status.attribute, { kind: 'enum', required: true, values: model.states, description }]] : declared;
}

/** Names a class made at run time, so type-graphql's errors and the schema name it. */
function named<T extends ClassType>(cls: T, name: string): T {
  Object.defineProperty(cls, 'name', { value: name });
  return cls;
}

/** The object type, connection and inputs of a model (see above); made once per model. */
export interface ModelTypes {
  type: ClassType;
  connection: ClassType;
  createInput: ClassType;
  updateInput: ClassType;
  /** The status enum, when the model has a machine. */
  status?: object;
  /** The GraphQL type of each attribute (the status included), for arguments. */
  attributeTypes: ReadonlyMap<string, () => GraphQLScalarType | object | [GraphQLScalarType]>;
}

const made = new Map<AnyModel, ModelTypes>();

export function modelTypes(model: AnyModel): ModelTypes {
  const existing = made.get(model);
  if (existing) return existing;
  const enums = new Map<string, object>();
  const type = named(class extends Versioned {}, model.type);
  // The entity's own id first, then the other values of its key, then its attributes.
  const keyFields = [model.idField, ...model.keyFields.filter((f) => f !== model.idField)];
  for (const field of keyFields) {
    const whose =
      field === model.idField ? `The ${model.type.toLowerCase()}'s id.` : `The id of the ${field.replace(/Id$/, '')} it belongs to.`;
    Field(() => ID, { description: whose })(type.prototype, field);
  }
  const attributeTypes = new Map<string, () => GraphQLScalarType | object | [GraphQLScalarType]>();
  for (const [name, attribute] of attributesOf(model)) {
    const fieldType = typeOf(model, name, attribute, enums);
    attributeTypes.set(name, fieldType);
    Field(fieldType, { nullable: !attribute.required, description: attribute.description })(type.prototype, name);
  }
  Field(() => String, { description: 'The user who created it.' })(type.prototype, 'createdBy');
  ObjectType(model.type, { simpleResolvers: true, implements: Node, description: model.description })(type);

  const connection = named(class extends Connection(type) {}, `${model.type}Connection`);
  ObjectType(`${model.type}Connection`, {
    simpleResolvers: true,
    description: `A page of ${model.type} items, with the cursor to the next page.`,
  })(connection);

  const createInput = named(class {}, `Create${model.type}Input`);
  const updateInput = named(class {}, `Update${model.type}Input`);
  for (const [name, attribute] of Object.entries<Attribute>(model.attributes)) {
    if (attribute.internal) continue;
    const optional = !attribute.required || attribute.default !== undefined;
    Field(typeOf(model, name, attribute, enums), { nullable: optional, description: attribute.description })(createInput.prototype, name);
    if (!attribute.readOnly)
      Field(typeOf(model, name, attribute, enums), { nullable: true, description: attribute.description })(updateInput.prototype, name);
  }
  InputType(`Create${model.type}Input`, { description: `A new ${model.type}: its attributes; the server makes its id.` })(createInput);
  InputType(`Update${model.type}Input`, { description: 'Fields to change; an omitted field is kept, a null clears it.' })(updateInput);

  const status = model.status ? enums.get(model.status.attribute) : undefined;
  const types = { type, connection, createInput, updateInput, status, attributeTypes };
  made.set(model, types);
  return types;
}
