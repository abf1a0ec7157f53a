/* The tables that map Simulink blocks onto jacgraph block types: BlockTypes,
 * library links, and the content Simulink files hold that we refuse.
 *
 * Defaults are Simulink's built-in ones (the BlockParameterDefaults that
 * R2013a writes for every type; identical for these parameters from R14 to
 * R2020a).  A file's own BlockParameterDefaults win over this table; R2024a
 * files write none, so there this table is the only source.  docs/simulink.md
 * prints the same table. */
#include <string.h>
#include "import_impl.h"

#define P(sl, jg, def) {sl, jg, def}
#define DISCRETE_TF_PARAMS                                                                   \
    {P("Numerator", NULL, "[1]"), P("Denominator", NULL, "[1 0.5]"), P("InitialStates", NULL, "0")}

static const jg__sl_bmap_t blocks[] = {
    /* ports and structure */
    {"Inport", "Inport", JG__SLB_CUSTOM | JG__SLB_NO_TS, NULL,
     {P("Port", NULL, "1"), P("PortDimensions", NULL, "-1")}},
    {"InportShadow", "Inport", JG__SLB_CUSTOM | JG__SLB_NO_TS, NULL, {P("Port", NULL, "1")}},
    {"Outport", "Outport", JG__SLB_CUSTOM | JG__SLB_NO_TS, NULL,
     {P("Port", NULL, "1"), P("PortDimensions", NULL, "-1")}},
    {"SubSystem", "SubSystem", JG__SLB_CUSTOM | JG__SLB_VIRTUAL, NULL, {{0}}},
    {"Reference", NULL, JG__SLB_CUSTOM, NULL, {{0}}},
    {"ModelReference", NULL, JG__SLB_CUSTOM, NULL, {{0}}},
    /* sources */
    {"Constant", "Constant", 0, "inf", {P("Value", NULL, "1")}},
    {"Ground", "Ground", 0, "inf", {{0}}},
    {"Step", "Step", 0, NULL, {P("Time", NULL, "1"), P("Before", NULL, "0"), P("After", NULL, "1")}},
    {"Sin", "SineWave", JG__SLB_CUSTOM, NULL,
     {P("Amplitude", NULL, "1"), P("Bias", NULL, "0"), P("Frequency", NULL, "1"),
      P("Phase", NULL, "0")}},
    {"Clock", "Clock", JG__SLB_NO_TS, NULL, {{0}}},
    {"DigitalClock", "DigitalClock", 0, "1", {{0}}},
    {"SignalGenerator", "SignalGenerator", JG__SLB_NO_TS, NULL,
     {P("WaveForm", NULL, "sine"), P("Amplitude", NULL, "1"), P("Frequency", NULL, "1"),
      P("Units", NULL, "Hertz")}},
    {"DiscretePulseGenerator", "DiscretePulseGenerator", 0, "1",
     {P("PulseType", NULL, "Sample based"), P("Amplitude", NULL, "1"), P("Period", NULL, "2"),
      P("PulseWidth", NULL, "1"), P("PhaseDelay", NULL, "0")}},
    /* sinks */
    {"Scope", "Scope", JG__SLB_CUSTOM | JG__SLB_NO_TS, NULL, {P("NumInputPorts", NULL, "1")}},
    {"TimeScope", "Scope", JG__SLB_NO_TS, NULL, {P("NumInputPorts", NULL, "1")}},
    {"Display", "Scope", JG__SLB_NO_TS, NULL, {{0}}},
    {"Terminator", "Terminator", JG__SLB_NO_TS, NULL, {{0}}},
    {"ToWorkspace", "ToWorkspace", JG__SLB_NO_TS, NULL, {{0}}},
    {"Stop", "Stop", 0, NULL, {{0}}},
    /* math */
    {"Sum", "Sum", 0, NULL, {P("Inputs", NULL, "++")}},
    {"Gain", "Gain", 0, NULL,
     {P("Gain", NULL, "1"), P("Multiplication", NULL, "Element-wise(K.*u)")}},
    {"Product", "Product", 0, NULL,
     {P("Inputs", NULL, "2"), P("Multiplication", NULL, "Element-wise(.*)")}},
    {"Bias", "Bias", 0, NULL, {P("Bias", NULL, "0")}},
    {"UnaryMinus", "UnaryMinus", 0, NULL, {{0}}},
    {"Abs", "Abs", 0, NULL, {{0}}},
    {"Math", "Math", 0, NULL, {P("Operator", NULL, "exp")}},
    {"Trigonometry", "Trigonometry", 0, NULL, {P("Operator", NULL, "sin")}},
    {"Fcn", "Fcn", JG__SLB_CUSTOM, NULL, {P("Expr", NULL, "sin(u[1])")}},
    {"Polyval", "Polyval", 0, NULL, {P("Coefs", NULL, "[1,2]")}},
    {"MinMax", "MinMax", 0, NULL, {P("Function", NULL, "min"), P("Inputs", NULL, "1")}},
    {"Rounding", "Rounding", 0, NULL, {P("Operator", NULL, "floor")}},
    {"Signum", "Sign", 0, NULL, {{0}}},
    {"RelationalOperator", "RelationalOperator", 0, NULL, {P("Operator", NULL, ">=")}},
    {"Logic", "Logic", 0, NULL, {P("Operator", NULL, "AND"), P("Inputs", NULL, "2")}},
    /* continuous */
    {"Integrator", "Integrator", JG__SLB_CUSTOM | JG__SLB_NO_TS, NULL,
     {P("ExternalReset", NULL, "none"), P("InitialConditionSource", NULL, "internal"),
      P("InitialCondition", NULL, "0"), P("ShowSaturationPort", NULL, "off"),
      P("ShowStatePort", NULL, "off")}},
    {"TransferFcn", "TransferFcn", JG__SLB_NO_TS, NULL,
     {P("Numerator", NULL, "[1]"), P("Denominator", NULL, "[1 2 1]")}},
    {"StateSpace", "StateSpace", JG__SLB_NO_TS, NULL,
     {P("A", NULL, "1"), P("B", NULL, "1"), P("C", NULL, "1"), P("D", NULL, "1"),
      P("X0", "InitialCondition", "0")}},
    {"ZeroPole", "ZeroPole", JG__SLB_NO_TS, NULL,
     {P("Zeros", NULL, "[1]"), P("Poles", NULL, "[0 1]"), P("Gain", NULL, "[1]")}},
    {"TransportDelay", "TransportDelay", JG__SLB_NO_TS, NULL,
     {P("DelayTime", NULL, "1"), P("InitialOutput", NULL, "0"), P("BufferSize", NULL, "1024"),
      P("PadeOrder", NULL, "0")}},
    {"Derivative", "Derivative", JG__SLB_NO_TS, NULL,
     {P("CoefficientInTFapproximation", NULL, "inf")}},
    /* discontinuities */
    {"Saturate", "Saturation", 0, NULL,
     {P("UpperLimit", NULL, "0.5"), P("LowerLimit", NULL, "-0.5")}},
    {"DeadZone", "DeadZone", 0, NULL,
     {P("LowerValue", NULL, "-0.5"), P("UpperValue", NULL, "0.5")}},
    {"Relay", "Relay", 0, NULL,
     {P("OnSwitchValue", NULL, "eps"), P("OffSwitchValue", NULL, "eps"),
      P("OnOutputValue", NULL, "1"), P("OffOutputValue", NULL, "0")}},
    {"Switch", "Switch", 0, NULL,
     {P("Criteria", NULL, "u2 >= Threshold"), P("Threshold", NULL, "0")}},
    {"MultiPortSwitch", "MultiPortSwitch", 0, NULL,
     {P("Inputs", NULL, "3"), P("DataPortOrder", NULL, "One-based contiguous"),
      P("DataPortForDefault", NULL, "Last data port")}},
    {"HitCross", "HitCrossing", 0, NULL,
     {P("HitCrossingOffset", NULL, "0"), P("HitCrossingDirection", NULL, "either"),
      P("ShowOutputPort", NULL, "on")}},
    {"RateLimiter", "RateLimiter", JG__SLB_NO_TS, NULL,
     {P("RisingSlewLimit", NULL, "1"), P("FallingSlewLimit", NULL, "-1"),
      P("InitialCondition", NULL, "0")}},
    {"Quantizer", "Quantizer", 0, NULL, {P("QuantizationInterval", NULL, "0.5")}},
    /* discrete */
    {"UnitDelay", "UnitDelay", JG__SLB_CUSTOM, "1", {{0}}},
    {"Memory", "Memory", JG__SLB_NO_TS, NULL, {P("X0", "InitialCondition", "0")}},
    {"ZeroOrderHold", "ZeroOrderHold", 0, "1", {{0}}},
    /* the two discrete transfer functions: one parameter set */
    {"DiscreteTransferFcn", "DiscreteTransferFcn", 0, NULL, DISCRETE_TF_PARAMS},
    {"DiscreteFilter", "DiscreteFilter", 0, NULL, DISCRETE_TF_PARAMS},
    {"DiscreteStateSpace", "DiscreteStateSpace", 0, "1",
     {P("A", NULL, "1"), P("B", NULL, "1"), P("C", NULL, "1"), P("D", NULL, "1"),
      P("X0", "InitialCondition", "0")}},
    {"DiscreteZeroPole", "DiscreteZeroPole", 0, "1",
     {P("Zeros", NULL, "[1]"), P("Poles", NULL, "[0 1]"), P("Gain", NULL, "[1]")}},
    {"DiscreteIntegrator", "DiscreteIntegrator", JG__SLB_CUSTOM, "1",
     {P("IntegratorMethod", NULL, "Integration: Forward Euler"), P("gainval", NULL, "1.0"),
      P("InitialCondition", NULL, "0")}},
    /* lookup tables */
    {"Lookup_n-D", NULL, JG__SLB_CUSTOM, NULL,
     {P("NumberOfTableDimensions", NULL, "2"), P("BreakpointsForDimension1", NULL, "[10,22,31]"),
      P("BreakpointsForDimension2", NULL, "[10,22,31]"),
      P("Table", NULL, "[4 5 6;16 19 20;10 18 23]"), P("InterpMethod", NULL, "Linear"),
      P("ExtrapMethod", NULL, "Linear")}},
    {"Lookup", "Lookup1D", JG__SLB_CUSTOM, NULL,
     {P("InputValues", "BreakpointsForDimension1", "[-4:5]"), P("Table", NULL, " rand(1,10)-0.5"),
      P("OutputValues", "Table", NULL), P("LookUpMeth", NULL, "Interpolation-Extrapolation")}},
    {"Lookup2D", "Lookup2D", JG__SLB_CUSTOM, NULL,
     {P("RowIndex", "BreakpointsForDimension1", "[0 1]"),
      P("ColumnIndex", "BreakpointsForDimension2", "[0 1]"), P("Table", NULL, "[0 0;0 0]"),
      P("OutputValues", "Table", NULL), P("LookUpMeth", NULL, "Interpolation-Extrapolation")}},
    {"LookupNDDirect", "LookupNDDirect", 0, NULL,
     {P("NumberOfTableDimensions", NULL, "2"), P("Table", NULL, "[4 5 6;16 19 20;10 18 23]"),
      P("InputsSelectThisObjectFromTable", NULL, "Element"), P("TableIsInput", NULL, "off"),
      P("DiagnosticForOutOfRangeInput", NULL, "Warning")}},
    /* units: InputUnit and OutputUnit come from the ports around it (convert.c) */
    {"UnitConversion", "UnitConversion", JG__SLB_CUSTOM | JG__SLB_NO_TS, NULL, {{0}}},
    /* routing */
    {"Mux", "Mux", JG__SLB_VIRTUAL, NULL, {P("Inputs", NULL, "4")}},
    {"Demux", "Demux", JG__SLB_VIRTUAL, NULL, {P("Outputs", NULL, "4")}},
    {"BusCreator", "Mux", JG__SLB_VIRTUAL | JG__SLB_CUSTOM, NULL, {P("Inputs", NULL, "4")}},
    {"BusSelector", NULL, JG__SLB_VIRTUAL | JG__SLB_CUSTOM, NULL,
     {P("OutputSignals", NULL, "signal1,signal2,signal3")}},
    {"Selector", "Selector", JG__SLB_VIRTUAL | JG__SLB_CUSTOM, NULL,
     {P("Indices", NULL, NULL), P("InputPortWidth", NULL, "-1")}},
    {"Goto", "Goto", JG__SLB_VIRTUAL, NULL,
     {P("GotoTag", NULL, "A"), P("TagVisibility", NULL, "local")}},
    {"From", "From", JG__SLB_VIRTUAL, NULL, {P("GotoTag", NULL, "A")}},
    {"GotoTagVisibility", "GotoTagVisibility", JG__SLB_VIRTUAL, NULL, {P("GotoTag", NULL, "A")}},
    {"InitialCondition", "IC", 0, NULL, {P("Value", NULL, "1")}},
    {"SignalConversion", "SignalConversion", JG__SLB_VIRTUAL, NULL, {{0}}},
    {"SignalSpecification", "SignalConversion", JG__SLB_VIRTUAL, NULL, {{0}}},
    {"Reshape", "SignalConversion", JG__SLB_VIRTUAL, NULL, {{0}}},
    {"DataTypeConversion", NULL, JG__SLB_CUSTOM, NULL,
     {P("OutDataTypeStr", NULL, "Inherit: Inherit via back propagation"),
      P("RndMeth", NULL, "Zero"), P("SaturateOnIntegerOverflow", NULL, "on")}},
    {"Width", "Width", JG__SLB_NO_TS, NULL, {{0}}},
    {"AlgebraicConstraint", "AlgebraicConstraint", JG__SLB_NO_TS, NULL,
     {P("InitialGuess", NULL, "0")}},
    /* more native blocks */
    {"Delay", "Delay", 0, NULL,
     {P("DelayLength", NULL, "2"), P("InitialCondition", NULL, "0.0"),
      P("DelayLengthSource", NULL, "Dialog"), P("InitialConditionSource", NULL, "Dialog"),
      P("ExternalReset", NULL, "None"), P("ShowEnablePort", NULL, "off")}},
    {"Backlash", "Backlash", 0, NULL, {P("BacklashWidth", NULL, "1"), P("InitialOutput", NULL, "0")}},
    {"CombinatorialLogic", "CombinatorialLogic", 0, NULL,
     {P("TruthTable", NULL, "[0 0;0 1;0 1;1 0;0 1;1 0;1 0;1 1]")}},
    {"RandomNumber", "RandomNumber", 0, NULL,
     {P("Mean", NULL, "0"), P("Variance", NULL, "1"), P("Seed", NULL, "0")}},
    {"UniformRandomNumber", "UniformRandomNumber", 0, NULL,
     {P("Minimum", NULL, "-1"), P("Maximum", NULL, "1"), P("Seed", NULL, "0")}},
    {"SampleTimeMath", "SampleTimeMath", JG__SLB_NO_TS, NULL,
     {P("TsampMathOp", NULL, "+"), P("weightValue", NULL, "1.0"),
      P("TsampMathImp", NULL, "Online Calculations")}},
    {"Assignment", "Assignment", JG__SLB_VIRTUAL, NULL,
     {P("NumberOfDimensions", NULL, "1"), P("IndexMode", NULL, "One-based"),
      P("IndexOptions", NULL, "Index vector (dialog)"), P("Indices", NULL, "1"),
      P("OutputInitialize", NULL, "Initialize using input port <Y0>")}},
    /* diagrams of native blocks: the "BlockType:" rows of templates[] */
    {"DotProduct", "BlockType:DotProduct", JG__SLB_TEMPLATE, NULL, {{0}}},
    {"ManualSwitch", "BlockType:ManualSwitch", JG__SLB_TEMPLATE, NULL, {{0}}},
    {"Assertion", "BlockType:Assertion", JG__SLB_TEMPLATE, NULL, {{0}}},
    {"DataTypeDuplicate", "BlockType:DataTypeDuplicate", JG__SLB_TEMPLATE, NULL, {{0}}},
    {"ToFile", "BlockType:ToFile", JG__SLB_TEMPLATE, NULL, {{0}}},
    /* user-interface only: nothing to simulate */
    {"CustomCallbackButton", NULL, JG__SLB_SKIP, NULL, {{0}}},
    {"KnobBlock", NULL, JG__SLB_SKIP, NULL, {{0}}},
    {"PushButtonBlock", NULL, JG__SLB_SKIP, NULL, {{0}}},
    {"SliderBlock", NULL, JG__SLB_SKIP, NULL, {{0}}},
    {"ToggleSwitchBlock", NULL, JG__SLB_SKIP, NULL, {{0}}},
    {"LampBlock", NULL, JG__SLB_SKIP, NULL, {{0}}},
    {"DashboardScope", NULL, JG__SLB_SKIP, NULL, {{0}}},
    {"DisplayBlock", NULL, JG__SLB_SKIP, NULL, {{0}}},
    {"GaugeBlock", NULL, JG__SLB_SKIP, NULL, {{0}}},
    {"CheckboxBlock", NULL, JG__SLB_SKIP, NULL, {{0}}},
    {"Probe", NULL, JG__SLB_SKIP, NULL, {{0}}},
};

/* Library blocks implemented natively: instance dialog parameters as the
 * native block's parameters. */
static const jg__sl_bmap_t library[] = {
    {"simulink/Math Operations/Slider Gain", "Gain", JG__SLB_NO_TS, NULL,
     {P("gain", "Gain", "1")}},
    {"simulink/Continuous/PID Controller", "PIDController", JG__SLB_NO_TS, NULL,
     {P("Controller", NULL, "PID"), P("Form", NULL, "Parallel"),
      P("TimeDomain", NULL, "Continuous-time"), P("P", NULL, "1"), P("I", NULL, "1"),
      P("D", NULL, "0"), P("N", NULL, "100"),
      P("InitialConditionForIntegrator", NULL, "0"), P("InitialConditionForFilter", NULL, "0"),
      P("LimitOutput", NULL, "off"), P("UpperSaturationLimit", NULL, "inf"),
      P("LowerSaturationLimit", NULL, "-inf"), P("AntiWindupMode", NULL, "none"),
      P("Kb", NULL, "1")}},
    {"simulink/Sources/Band-Limited White Noise", "BandLimitedWhiteNoise", JG__SLB_NO_TS, NULL,
     {P("Cov", NULL, "[0.1]"), P("Ts", NULL, "0.1"), P("seed", NULL, "[23341]")}},
    {"simulink/Sources/Repeating Sequence", "RepeatingSequence", JG__SLB_NO_TS, NULL,
     {P("rep_seq_t", NULL, "[0 2]"), P("rep_seq_y", NULL, "[0 2]")}},
    {"simulink/Sources/Ramp", "Ramp", JG__SLB_NO_TS, NULL,
     {P("slope", "Slope", "1"), P("start", "StartTime", "0"), P("X0", "InitialOutput", "0")}},
    {"simulink/Math Operations/Algebraic Constraint", "AlgebraicConstraint", JG__SLB_NO_TS,
     NULL, {P("z0", "InitialGuess", "0")}},
    {"simulink/Model-Wide Utilities/DocBlock", NULL, JG__SLB_SKIP, NULL, {{0}}},
    {"simulink/Model-Wide Utilities/Model Info", NULL, JG__SLB_SKIP, NULL, {{0}}},
    {"simulink/Model-Wide Utilities/Block Support Table", NULL, JG__SLB_SKIP, NULL, {{0}}},
    {"simulink/Sinks/XY Graph", NULL, JG__SLB_SKIP, NULL, {{0}}},
};

/* Library blocks that are small diagrams of native blocks: a SubSystem
 * template whose "parameters" are the instance dialog values (so the inner
 * expressions read them like a mask's).  "$name" as a whole string value is
 * replaced by the instance value of name itself (for literal parameters such
 * as an operator).  "defaults" lists the instance parameters with the
 * library's defaults.  A block may have several rows: `when` chooses the
 * variant by literal dialog values ("key=value;..."; "key=value*" also
 * matches an absent key), the first matching row wins; an instance that no
 * row fits falls to the refused table below.  The Inport/Outport counts are
 * the library block's ports.  The templates are written as C tokens and
 * stringified (JSON()), so that they read as JSON. */
typedef struct {
    const char *src;
    const char *when;
    const char *tmpl;
} sl_template_t;

#define JSON(...) #__VA_ARGS__
#define JSONX(...) JSON(__VA_ARGS__)   /* expands macro arguments first */

/* The period T of the input's (inherited, discrete) rate as a signal, exact:
 * a Backward Euler accumulator y(n) = x(n) + T v(n), x(n+1) = y(n), x(0) = 0,
 * fed with v = 1 at the first hit and 0 after, holds T.  v is a UnitDelay
 * (initially 1) of "u AND NOT u", which is 0 for any u and runs at u's rate.
 * Blocks Ts_not, Ts_zero, Ts_first, Ts; the input u drives Ts_not:1 and
 * Ts_zero:1 (the caller lists those lines); the period is Ts:1. */
#define TS_BLOCKS                                                                            \
    {"name": "Ts_not", "type": "Logic", "Operator": "NOT"},                                  \
    {"name": "Ts_zero", "type": "Logic", "Operator": "AND", "Inputs": 2},                   \
    {"name": "Ts_first", "type": "UnitDelay", "InitialCondition": 1, "SampleTime": -1},     \
    {"name": "Ts", "type": "DiscreteIntegrator",                                             \
     "IntegratorMethod": "Integration: Backward Euler", "gainval": 1, "InitialCondition": 0, \
     "SampleTime": -1}
#define TS_LINES                                                               \
    {"src": "Ts_not:1", "dst": "Ts_zero:2"}, {"src": "Ts_zero:1", "dst": "Ts_first:1"}, \
    {"src": "Ts_first:1", "dst": "Ts:1"}

/* The first-hit flag alone (1 at the first hit of u's rate, then 0). */
#define FIRST_BLOCKS                                                      \
    {"name": "F_not", "type": "Logic", "Operator": "NOT"},               \
    {"name": "F_zero", "type": "Logic", "Operator": "AND", "Inputs": 2}, \
    {"name": "First", "type": "UnitDelay", "InitialCondition": 1, "SampleTime": "tsamp"}
#define FIRST_LINES \
    {"src": "u:1", "dst": ["F_not:1", "F_zero:1"]}, {"src": "F_not:1", "dst": "F_zero:2"}, \
    {"src": "F_zero:1", "dst": "First:1"}

/* y = c(u) AND NOT c(u(n-1)) with c(u) = (u OP 0), the previous c from vinit
 * (the Detect Rise/Fall blocks: "initial condition of the Boolean expression
 * U/z OP 0"). */
#define DETECT_EDGE(OP)                                                                      \
    JSONX({"defaults": {"vinit": "0"},                                                       \
           "blocks": [{"name": "u", "type": "Inport", "Port": 1},                           \
                      {"name": "Zero", "type": "Constant", "Value": 0},                     \
                      {"name": "Cond", "type": "RelationalOperator", "Operator": OP,        \
                       "ZeroCross": "off"},                                                  \
                      {"name": "Prev", "type": "UnitDelay", "InitialCondition": "vinit",    \
                       "SampleTime": -1},                                                    \
                      {"name": "NotPrev", "type": "Logic", "Operator": "NOT"},              \
                      {"name": "Edge", "type": "Logic", "Operator": "AND", "Inputs": 2},    \
                      {"name": "y", "type": "Outport", "Port": 1}],                         \
           "lines": [{"src": "u:1", "dst": "Cond:1"}, {"src": "Zero:1", "dst": "Cond:2"},   \
                     {"src": "Cond:1", "dst": ["Prev:1", "Edge:1"]},                        \
                     {"src": "Prev:1", "dst": "NotPrev:1"},                                 \
                     {"src": "NotPrev:1", "dst": "Edge:2"}, {"src": "Edge:1", "dst": "y:1"}]})

/* y = u OP u(n-1), the previous input from vinit. */
#define DETECT_CHANGE(VINIT, OP)                                                           \
    JSONX({"defaults": {"vinit": VINIT},                                                   \
           "blocks": [{"name": "u", "type": "Inport", "Port": 1},                         \
                      {"name": "Prev", "type": "UnitDelay", "InitialCondition": "vinit",  \
                       "SampleTime": -1},                                                  \
                      {"name": "Cmp", "type": "RelationalOperator", "Operator": OP,       \
                       "ZeroCross": "off"},                                                \
                      {"name": "y", "type": "Outport", "Port": 1}],                       \
           "lines": [{"src": "u:1", "dst": ["Prev:1", "Cmp:1"]},                         \
                     {"src": "Prev:1", "dst": "Cmp:2"}, {"src": "Cmp:1", "dst": "y:1"}]})

/* y = (u OPL lowlimit) AND (u OPR uplimit); inputs (up, u, lo) when DYN. */
#define INTERVAL(OPR, OPL)                                                                    \
    JSONX({"defaults": {"uplimit": "0.5", "lowlimit": "-0.5"},                                \
           "blocks": [{"name": "u", "type": "Inport", "Port": 1},                            \
                      {"name": "Up", "type": "Constant", "Value": "uplimit"},                \
                      {"name": "Lo", "type": "Constant", "Value": "lowlimit"},               \
                      {"name": "Right", "type": "RelationalOperator", "Operator": OPR},      \
                      {"name": "Left", "type": "RelationalOperator", "Operator": OPL},       \
                      {"name": "In", "type": "Logic", "Operator": "AND", "Inputs": 2},       \
                      {"name": "y", "type": "Outport", "Port": 1}],                          \
           "lines": [{"src": "u:1", "dst": ["Right:1", "Left:1"]},                          \
                     {"src": "Up:1", "dst": "Right:2"}, {"src": "Lo:1", "dst": "Left:2"},   \
                     {"src": "Right:1", "dst": "In:1"}, {"src": "Left:1", "dst": "In:2"},   \
                     {"src": "In:1", "dst": "y:1"}]})
#define INTERVAL_DYN(OPR, OPL)                                                                \
    JSONX({"defaults": {},                                                                    \
           "blocks": [{"name": "up", "type": "Inport", "Port": 1},                           \
                      {"name": "u", "type": "Inport", "Port": 2},                            \
                      {"name": "lo", "type": "Inport", "Port": 3},                           \
                      {"name": "Right", "type": "RelationalOperator", "Operator": OPR},      \
                      {"name": "Left", "type": "RelationalOperator", "Operator": OPL},       \
                      {"name": "In", "type": "Logic", "Operator": "AND", "Inputs": 2},       \
                      {"name": "y", "type": "Outport", "Port": 1}],                          \
           "lines": [{"src": "u:1", "dst": ["Right:1", "Left:1"]},                          \
                     {"src": "up:1", "dst": "Right:2"}, {"src": "lo:1", "dst": "Left:2"},   \
                     {"src": "Right:1", "dst": "In:1"}, {"src": "Left:1", "dst": "In:2"},   \
                     {"src": "In:1", "dst": "y:1"}]})

/* y = u $relop VALUE (Compare To Constant, Compare To Zero); the defaults
 * relop and ZeroCross, and before ZeroCross the variadic DEFAULTS ("const":
 * "3.0", or none). */
#define COMPARE(VALUE, ...)                                                                  \
    JSONX({"defaults": {"relop": "<=", __VA_ARGS__ "ZeroCross": "on"},                     \
           "blocks": [{"name": "u", "type": "Inport", "Port": 1},                           \
                      {"name": "Constant", "type": "Constant", "Value": VALUE},             \
                      {"name": "Compare", "type": "RelationalOperator", "Operator": "$relop", \
                       "ZeroCross": "$ZeroCross"},                                          \
                      {"name": "y", "type": "Outport", "Port": 1}],                         \
           "lines": [{"src": "u:1", "dst": "Compare:1"},                                     \
                     {"src": "Constant:1", "dst": "Compare:2"}, {"src": "Compare:1", "dst": "y:1"}]})

/* Unit Delay With Preview Resettable: y1 = R ? Reset:1 : u, y2 = x, x(n+1) =
 * y1; the caller lists the blocks u and R and the reset value's line into
 * Reset:1 before these. */
#define PREVIEW_BLOCKS                                                                       \
    {"name": "Reset", "type": "Switch", "Criteria": "u2 ~= 0"},                            \
    {"name": "X", "type": "UnitDelay", "InitialCondition": "vinit", "SampleTime": "tsamp"}, \
    {"name": "y1", "type": "Outport", "Port": 1}, {"name": "y2", "type": "Outport", "Port": 2}
#define PREVIEW_LINES                                                                        \
    {"src": "R:1", "dst": "Reset:2"}, {"src": "u:1", "dst": "Reset:3"},                    \
    {"src": "Reset:1", "dst": ["y1:1", "X:1"]}, {"src": "X:1", "dst": "y2:1"}

/* min(max(u, lo), up) of the inputs up, u, lo (the dynamic discontinuities):
 * the caller lists the lines from u:1 (to Max:1) and from Min:1 (the result). */
#define CLAMP_BLOCKS                                                                         \
    {"name": "up", "type": "Inport", "Port": 1}, {"name": "u", "type": "Inport", "Port": 2}, \
    {"name": "lo", "type": "Inport", "Port": 3},                                            \
    {"name": "Max", "type": "MinMax", "Function": "max", "Inputs": 2},                     \
    {"name": "Min", "type": "MinMax", "Function": "min", "Inputs": 2}
#define CLAMP_LINES                                                                          \
    {"src": "lo:1", "dst": "Max:2"}, {"src": "Max:1", "dst": "Min:1"}, {"src": "up:1", "dst": "Min:2"}

/* The counters' state: X (x(n), initially 0, at tsamp), Inc (x + 1), Wrap
 * (x + 1 CRITERIA THRESHOLD ? 0 : x + 1) into X.  The caller reads X:1 (the
 * count) and lists the line from it, which also feeds Inc:1. */
#define COUNTER_BLOCKS(CRITERIA, THRESHOLD)                                                  \
    {"name": "X", "type": "UnitDelay", "InitialCondition": 0, "SampleTime": "tsamp"},       \
    {"name": "Inc", "type": "Bias", "Bias": 1}, {"name": "Zero", "type": "Constant", "Value": 0}, \
    {"name": "Wrap", "type": "Switch", "Criteria": CRITERIA, "Threshold": THRESHOLD}
#define COUNTER_LINES                                                                        \
    {"src": "Zero:1", "dst": "Wrap:1"}, {"src": "Inc:1", "dst": ["Wrap:2", "Wrap:3"]},     \
    {"src": "Wrap:1", "dst": "X:1"}

/* y = OP(2 pi u) (the Sine and Cosine lookup blocks, computed exactly). */
#define SINCOS(OP)                                                                        \
    JSONX({"defaults": {},                                                                \
           "blocks": [{"name": "u", "type": "Inport", "Port": 1},                        \
                      {"name": "TwoPi", "type": "Gain", "Gain": "2*pi"},                 \
                      {"name": "Fn", "type": "Trigonometry", "Operator": OP},            \
                      {"name": "y", "type": "Outport", "Port": 1}],                      \
           "lines": [{"src": "u:1", "dst": "TwoPi:1"}, {"src": "TwoPi:1", "dst": "Fn:1"}, \
                     {"src": "Fn:1", "dst": "y:1"}]})

/* y = u + B (the increment and decrement blocks on double signals). */
#define ADD_CONST(B)                                                                      \
    JSONX({"defaults": {},                                                                \
           "blocks": [{"name": "u", "type": "Inport", "Port": 1},                        \
                      {"name": "Add", "type": "Bias", "Bias": B},                        \
                      {"name": "y", "type": "Outport", "Port": 1}],                      \
           "lines": [{"src": "u:1", "dst": "Add:1"}, {"src": "Add:1", "dst": "y:1"}]})

/* Assertion blocks only check their inputs: sinks. */
#define SINK(N) SINK##N
#define SINK1                                                           \
    JSON({"defaults": {},                                               \
          "blocks": [{"name": "u1", "type": "Inport", "Port": 1},      \
                     {"name": "T1", "type": "Terminator"}],            \
          "lines": [{"src": "u1:1", "dst": "T1:1"}]})
#define SINK2                                                                                \
    JSON({"defaults": {},                                                                    \
          "blocks": [{"name": "u1", "type": "Inport", "Port": 1},                           \
                     {"name": "u2", "type": "Inport", "Port": 2},                           \
                     {"name": "T1", "type": "Terminator"}, {"name": "T2", "type": "Terminator"}], \
          "lines": [{"src": "u1:1", "dst": "T1:1"}, {"src": "u2:1", "dst": "T2:1"}]})
#define SINK3                                                                                \
    JSON({"defaults": {},                                                                    \
          "blocks": [{"name": "u1", "type": "Inport", "Port": 1},                           \
                     {"name": "u2", "type": "Inport", "Port": 2},                           \
                     {"name": "u3", "type": "Inport", "Port": 3},                           \
                     {"name": "T1", "type": "Terminator"}, {"name": "T2", "type": "Terminator"}, \
                     {"name": "T3", "type": "Terminator"}],                                 \
          "lines": [{"src": "u1:1", "dst": "T1:1"}, {"src": "u2:1", "dst": "T2:1"},        \
                    {"src": "u3:1", "dst": "T3:1"}]})

#define SINK4                                                                                \
    JSON({"defaults": {},                                                                    \
          "blocks": [{"name": "u1", "type": "Inport", "Port": 1},                           \
                     {"name": "u2", "type": "Inport", "Port": 2},                           \
                     {"name": "u3", "type": "Inport", "Port": 3},                           \
                     {"name": "u4", "type": "Inport", "Port": 4},                           \
                     {"name": "T1", "type": "Terminator"}, {"name": "T2", "type": "Terminator"}, \
                     {"name": "T3", "type": "Terminator"}, {"name": "T4", "type": "Terminator"}], \
          "lines": [{"src": "u1:1", "dst": "T1:1"}, {"src": "u2:1", "dst": "T2:1"},        \
                    {"src": "u3:1", "dst": "T3:1"}, {"src": "u4:1", "dst": "T4:1"}]})

/* Manual Switch: input K passes, the other one ends in a Terminator. */
#define PASS(K, OTHER)                                                                      \
    JSONX({"defaults": {},                                                                  \
           "blocks": [{"name": "u1", "type": "Inport", "Port": 1},                         \
                      {"name": "u2", "type": "Inport", "Port": 2},                         \
                      {"name": "Pass", "type": "SignalConversion"},                        \
                      {"name": "Off", "type": "Terminator"},                               \
                      {"name": "y", "type": "Outport", "Port": 1}],                        \
           "lines": [{"src": K, "dst": "Pass:1"}, {"src": OTHER, "dst": "Off:1"},          \
                     {"src": "Pass:1", "dst": "y:1"}]})

/* Tapped Delay: x = [u(n-1); ...; u(n-N)] in a DiscreteStateSpace (shift
 * register), C and D choose the order and whether u(n) is included. */
#define TAPPED(C, D)                                                                        \
    JSONX({"defaults": {"vinit": "0.0", "samptime": "-1", "NumDelays": "4"},               \
           "blocks": [{"name": "u", "type": "Inport", "Port": 1},                          \
                      {"name": "Taps", "type": "DiscreteStateSpace",                       \
                       "A": "[zeros(1,NumDelays); eye(NumDelays-1) zeros(NumDelays-1,1)]", \
                       "B": "[1; zeros(NumDelays-1,1)]", "C": C, "D": D,                   \
                       "InitialCondition": "vinit", "SampleTime": "samptime"},             \
                      {"name": "y", "type": "Outport", "Port": 1}],                        \
           "lines": [{"src": "u:1", "dst": "Taps:1"}, {"src": "Taps:1", "dst": "y:1"}]})

#define AMD "simulink/Additional Math & Discrete/"
#define UDLIB AMD "Additional Discrete/"
#define INCDEC AMD "Additional Math: Increment - Decrement/"
#define LOGIC "simulink/Logic and Bit Operations/"
#define VERIF "simulink/Model Verification/"

static const sl_template_t templates[] = {
    {LOGIC "Compare To Constant", NULL, COMPARE("const", "const": "3.0",)},
    {LOGIC "Compare To Zero", NULL, COMPARE(0, )},
    {LOGIC "Detect Change", NULL, DETECT_CHANGE("0", "~=")},
    {LOGIC "Detect Increase", NULL, DETECT_CHANGE("0.0", ">")},
    {LOGIC "Detect Decrease", NULL, DETECT_CHANGE("0.0", "<")},
    {LOGIC "Detect Rise Positive", NULL, DETECT_EDGE(">")},
    {LOGIC "Detect Rise Nonnegative", NULL, DETECT_EDGE(">=")},
    {LOGIC "Detect Fall Negative", NULL, DETECT_EDGE("<")},
    {LOGIC "Detect Fall Nonpositive", NULL, DETECT_EDGE("<=")},
    {LOGIC "Interval Test", "IntervalClosedRight=on*;IntervalClosedLeft=on*", INTERVAL("<=", ">=")},
    {LOGIC "Interval Test", "IntervalClosedRight=on*;IntervalClosedLeft=off", INTERVAL("<=", ">")},
    {LOGIC "Interval Test", "IntervalClosedRight=off;IntervalClosedLeft=on*", INTERVAL("<", ">=")},
    {LOGIC "Interval Test", "IntervalClosedRight=off;IntervalClosedLeft=off", INTERVAL("<", ">")},
    {LOGIC "Interval Test Dynamic", "IntervalClosedRight=on*;IntervalClosedLeft=on*",
     INTERVAL_DYN("<=", ">=")},
    {LOGIC "Interval Test Dynamic", "IntervalClosedRight=on*;IntervalClosedLeft=off",
     INTERVAL_DYN("<=", ">")},
    {LOGIC "Interval Test Dynamic", "IntervalClosedRight=off;IntervalClosedLeft=on*",
     INTERVAL_DYN("<", ">=")},
    {LOGIC "Interval Test Dynamic", "IntervalClosedRight=off;IntervalClosedLeft=off",
     INTERVAL_DYN("<", ">")},
    /* y = min(max(u, lo), up) with inputs up, u, lo */
    {"simulink/Discontinuities/Saturation Dynamic", NULL,
     JSONX({"defaults": {},
            "blocks": [CLAMP_BLOCKS, {"name": "y", "type": "Outport", "Port": 1}],
            "lines": [{"src": "u:1", "dst": "Max:1"}, CLAMP_LINES, {"src": "Min:1", "dst": "y:1"}]})},
    /* y = u - min(max(u, lo), up) */
    {"simulink/Discontinuities/Dead Zone Dynamic", NULL,
     JSONX({"defaults": {},
            "blocks": [CLAMP_BLOCKS, {"name": "Sum", "type": "Sum", "Inputs": "+-"},
                       {"name": "y", "type": "Outport", "Port": 1}],
            "lines": [{"src": "u:1", "dst": ["Max:1", "Sum:1"]}, CLAMP_LINES,
                      {"src": "Min:1", "dst": "Sum:2"}, {"src": "Sum:1", "dst": "y:1"}]})},
    /* y = sign(u) (gain |u| + offset) = gain u + sign(u) offset */
    {"simulink/Discontinuities/Coulomb & Viscous Friction", NULL,
     JSON({"defaults": {"offset": "[1 3 2 0]", "gain": "1"},
           "blocks": [{"name": "u", "type": "Inport", "Port": 1},
                      {"name": "Viscous", "type": "Gain", "Gain": "gain"},
                      {"name": "Sign", "type": "Sign"},
                      {"name": "Offset", "type": "Constant", "Value": "offset"},
                      {"name": "Coulomb", "type": "Product", "Inputs": "**"},
                      {"name": "Sum", "type": "Sum", "Inputs": "++"},
                      {"name": "y", "type": "Outport", "Port": 1}],
           "lines": [{"src": "u:1", "dst": ["Viscous:1", "Sign:1"]},
                     {"src": "Sign:1", "dst": "Coulomb:1"}, {"src": "Offset:1", "dst": "Coulomb:2"},
                     {"src": "Viscous:1", "dst": "Sum:1"}, {"src": "Coulomb:1", "dst": "Sum:2"},
                     {"src": "Sum:1", "dst": "y:1"}]})},
    /* y = 0 where u > Threshold, else u */
    {"simulink/Discontinuities/Wrap To Zero", NULL,
     JSON({"defaults": {"Threshold": "255"},
           "blocks": [{"name": "u", "type": "Inport", "Port": 1},
                      {"name": "Zero", "type": "Constant", "Value": 0},
                      {"name": "Wrap", "type": "Switch", "Criteria": "u2 > Threshold",
                       "Threshold": "Threshold"},
                      {"name": "y", "type": "Outport", "Port": 1}],
           "lines": [{"src": "Zero:1", "dst": "Wrap:1"}, {"src": "u:1", "dst": ["Wrap:2", "Wrap:3"]},
                     {"src": "Wrap:1", "dst": "y:1"}]})},
    /* y(n) = p y(n-1) + (1 - p) u(n), y(-1) = ICPrevOutput: H = (1 - p) z/(z - p);
     * the state is y(n-1) (no feedback line, so the rate inherits from u) */
    {"simulink/Discrete/Transfer Fcn First Order", NULL,
     JSON({"defaults": {"PoleZ": "0.95", "ICPrevOutput": "0.0"},
           "blocks": [{"name": "u", "type": "Inport", "Port": 1},
                      {"name": "TF", "type": "DiscreteStateSpace", "A": "PoleZ", "B": "1-PoleZ",
                       "C": "PoleZ", "D": "1-PoleZ", "InitialCondition": "ICPrevOutput",
                       "SampleTime": -1},
                      {"name": "y", "type": "Outport", "Port": 1}],
           "lines": [{"src": "u:1", "dst": "TF:1"}, {"src": "TF:1", "dst": "y:1"}]})},
    /* y(n) = p y(n-1) + K (u(n) - z0 u(n-1)), K = (1 - p)/(1 - z0):
     * H = K (z - z0)/(z - p); the states are y(n-1) and u(n-1) */
    {"simulink/Discrete/Transfer Fcn Lead or Lag", NULL,
     JSON({"defaults": {"PoleZ": "0.95", "ZeroZ": "0.75", "ICPrevOutput": "0.0",
                        "ICPrevInput": "0.0"},
           "blocks": [{"name": "u", "type": "Inport", "Port": 1},
                      {"name": "TF", "type": "DiscreteStateSpace",
                       "A": "[PoleZ, -(1-PoleZ)/(1-ZeroZ)*ZeroZ; 0, 0]",
                       "B": "[(1-PoleZ)/(1-ZeroZ); 1]",
                       "C": "[PoleZ, -(1-PoleZ)/(1-ZeroZ)*ZeroZ]", "D": "(1-PoleZ)/(1-ZeroZ)",
                       "InitialCondition": "[ICPrevOutput; ICPrevInput]", "SampleTime": -1},
                      {"name": "y", "type": "Outport", "Port": 1}],
           "lines": [{"src": "u:1", "dst": "TF:1"}, {"src": "TF:1", "dst": "y:1"}]})},
    /* y(n) = (u(n) - z0 u(n-1))/(1 - z0): H = (z - z0)/((1 - z0) z) */
    {"simulink/Discrete/Transfer Fcn Real Zero", NULL,
     JSON({"defaults": {"ZeroZ": "0.75", "ICPrevInput": "0.0"},
           "blocks": [{"name": "u", "type": "Inport", "Port": 1},
                      {"name": "PrevU", "type": "UnitDelay", "InitialCondition": "ICPrevInput",
                       "SampleTime": -1},
                      {"name": "Zero", "type": "Gain", "Gain": "ZeroZ"},
                      {"name": "Diff", "type": "Sum", "Inputs": "+-"},
                      {"name": "K", "type": "Gain", "Gain": "1/(1-ZeroZ)"},
                      {"name": "y", "type": "Outport", "Port": 1}],
           "lines": [{"src": "u:1", "dst": ["PrevU:1", "Diff:1"]},
                     {"src": "PrevU:1", "dst": "Zero:1"}, {"src": "Zero:1", "dst": "Diff:2"},
                     {"src": "Diff:1", "dst": "K:1"}, {"src": "K:1", "dst": "y:1"}]})},
    /* y(n) = u(n) - u(n-1) */
    {"simulink/Discrete/Difference", NULL,
     JSON({"defaults": {"ICPrevInput": "0.0"},
           "blocks": [{"name": "u", "type": "Inport", "Port": 1},
                      {"name": "UD", "type": "UnitDelay", "InitialCondition": "ICPrevInput",
                       "SampleTime": -1},
                      {"name": "Diff", "type": "Sum", "Inputs": "+-"},
                      {"name": "y", "type": "Outport", "Port": 1}],
           "lines": [{"src": "u:1", "dst": ["UD:1", "Diff:1"]}, {"src": "UD:1", "dst": "Diff:2"},
                     {"src": "Diff:1", "dst": "y:1"}]})},
    /* y(n) = w(n) - w(n-1), w = K u/T, w(-1) = ICPrevScaledInput */
    {"simulink/Discrete/Discrete Derivative", NULL,
     JSONX({"defaults": {"gainval": "1.0", "ICPrevScaledInput": "0.0"},
            "blocks": [{"name": "u", "type": "Inport", "Port": 1}, TS_BLOCKS,
                       {"name": "K", "type": "Gain", "Gain": "gainval"},
                       {"name": "Scaled", "type": "Product", "Inputs": "*/"},
                       {"name": "Prev", "type": "UnitDelay",
                        "InitialCondition": "ICPrevScaledInput", "SampleTime": -1},
                       {"name": "Diff", "type": "Sum", "Inputs": "+-"},
                       {"name": "y", "type": "Outport", "Port": 1}],
            "lines": [{"src": "u:1", "dst": ["Ts_not:1", "Ts_zero:1", "K:1"]}, TS_LINES,
                      {"src": "K:1", "dst": "Scaled:1"}, {"src": "Ts:1", "dst": "Scaled:2"},
                      {"src": "Scaled:1", "dst": ["Prev:1", "Diff:1"]},
                      {"src": "Prev:1", "dst": "Diff:2"}, {"src": "Diff:1", "dst": "y:1"}]})},
    /* output [u(n-N) ... u(n-1)] (Oldest first) or [u(n-1) ... u(n-N)], and
     * u(n) last or first with includeCurrent */
    {"simulink/Discrete/Tapped Delay", "DelayOrder=Oldest*;includeCurrent=off*",
     TAPPED("fliplr(eye(NumDelays))", "zeros(NumDelays,1)")},
    {"simulink/Discrete/Tapped Delay", "DelayOrder=Newest;includeCurrent=off*",
     TAPPED("eye(NumDelays)", "zeros(NumDelays,1)")},
    {"simulink/Discrete/Tapped Delay", "DelayOrder=Oldest*;includeCurrent=on",
     TAPPED("[fliplr(eye(NumDelays)); zeros(1,NumDelays)]", "[zeros(NumDelays,1); 1]")},
    {"simulink/Discrete/Tapped Delay", "DelayOrder=Newest;includeCurrent=on",
     TAPPED("[zeros(1,NumDelays); eye(NumDelays)]", "[1; zeros(NumDelays,1)]")},
    /* FIR: y(n) = sum_k g(k) u(n-k+1), earlier inputs from vinit */
    {"simulink_need_slupdate/Weighted Moving Average", NULL,
     JSON({"defaults": {"mgainval": "[0.1:0.1:1 0.9:-0.1:0.1]", "vinit": "0.0", "samptime": "-1"},
           "blocks": [{"name": "u", "type": "Inport", "Port": 1},
                      {"name": "FIR", "type": "DiscreteFilter", "Numerator": "mgainval",
                       "Denominator": 1, "InitialStates": "vinit", "SampleTime": "samptime"},
                      {"name": "y", "type": "Outport", "Port": 1}],
           "lines": [{"src": "u:1", "dst": "FIR:1"}, {"src": "FIR:1", "dst": "y:1"}]})},
    /* x(n+1) = A x + B u, y = C x + D u at the inherited rate */
    {UDLIB "Fixed-Point State-Space", NULL,
     JSON({"defaults": {"A": "[2.6020 -2.2793 0.6708; 1 0 0; 0 1 0]", "B": "[1; 0; 0]",
                        "C": "[0.0184 0.0024 0.0055]", "D": "[0.0033]", "X0": "0.0"},
           "blocks": [{"name": "u", "type": "Inport", "Port": 1},
                      {"name": "SS", "type": "DiscreteStateSpace", "A": "A", "B": "B", "C": "C",
                       "D": "D", "InitialCondition": "X0", "SampleTime": -1},
                      {"name": "y", "type": "Outport", "Port": 1}],
           "lines": [{"src": "u:1", "dst": "SS:1"}, {"src": "SS:1", "dst": "y:1"}]})},
    /* (b0 + b1 z^-1 + ...)/(1 + a1 z^-1 + ...), the delay line from vinit */
    {UDLIB "Transfer Fcn Direct Form II", NULL,
     JSON({"defaults": {"NumCoefVec": "[0.2 0.3 0.2]", "DenCoefVec": "[-0.9 0.6]", "vinit": "0.0"},
           "blocks": [{"name": "u", "type": "Inport", "Port": 1},
                      {"name": "DF2", "type": "DiscreteFilter", "Numerator": "NumCoefVec",
                       "Denominator": "[1 DenCoefVec(:).']", "InitialStates": "vinit",
                       "SampleTime": -1},
                      {"name": "y", "type": "Outport", "Port": 1}],
           "lines": [{"src": "u:1", "dst": "DF2:1"}, {"src": "DF2:1", "dst": "y:1"}]})},
    /* y = x, x(n+1) = E ? u : x */
    {UDLIB "Unit Delay Enabled", NULL,
     JSON({"defaults": {"vinit": "0.0", "tsamp": "-1"},
           "blocks": [{"name": "u", "type": "Inport", "Port": 1},
                      {"name": "E", "type": "Inport", "Port": 2},
                      {"name": "Hold", "type": "Switch", "Criteria": "u2 ~= 0"},
                      {"name": "X", "type": "UnitDelay", "InitialCondition": "vinit",
                       "SampleTime": "tsamp"},
                      {"name": "y", "type": "Outport", "Port": 1}],
           "lines": [{"src": "u:1", "dst": "Hold:1"}, {"src": "E:1", "dst": "Hold:2"},
                     {"src": "X:1", "dst": ["Hold:3", "y:1"]}, {"src": "Hold:1", "dst": "X:1"}]})},
    /* y = first ? IC : x, x(n+1) = u */
    {UDLIB "Unit Delay External IC", NULL,
     JSONX({"defaults": {"tsamp": "-1"},
            "blocks": [{"name": "u", "type": "Inport", "Port": 1},
                       {"name": "IC", "type": "Inport", "Port": 2}, FIRST_BLOCKS,
                       {"name": "X", "type": "UnitDelay", "InitialCondition": 0,
                        "SampleTime": "tsamp"},
                       {"name": "Init", "type": "Switch", "Criteria": "u2 ~= 0"},
                       {"name": "y", "type": "Outport", "Port": 1}],
            "lines": [FIRST_LINES, {"src": "u:1", "dst": "X:1"}, {"src": "IC:1", "dst": "Init:1"},
                      {"src": "First:1", "dst": "Init:2"}, {"src": "X:1", "dst": "Init:3"},
                      {"src": "Init:1", "dst": "y:1"}]})},
    /* y = R ? vinit : x, x(n+1) = u */
    {UDLIB "Unit Delay Resettable", NULL,
     JSON({"defaults": {"vinit": "0.0", "tsamp": "-1"},
           "blocks": [{"name": "u", "type": "Inport", "Port": 1},
                      {"name": "R", "type": "Inport", "Port": 2},
                      {"name": "X", "type": "UnitDelay", "InitialCondition": "vinit",
                       "SampleTime": "tsamp"},
                      {"name": "Init", "type": "Constant", "Value": "vinit"},
                      {"name": "Reset", "type": "Switch", "Criteria": "u2 ~= 0"},
                      {"name": "y", "type": "Outport", "Port": 1}],
           "lines": [{"src": "u:1", "dst": "X:1"}, {"src": "Init:1", "dst": "Reset:1"},
                     {"src": "R:1", "dst": "Reset:2"}, {"src": "X:1", "dst": "Reset:3"},
                     {"src": "Reset:1", "dst": "y:1"}]})},
    /* y = (R or first) ? IC : x, x(n+1) = u */
    {UDLIB "Unit Delay Resettable External IC", NULL,
     JSONX({"defaults": {"tsamp": "-1"},
            "blocks": [{"name": "u", "type": "Inport", "Port": 1},
                       {"name": "R", "type": "Inport", "Port": 2},
                       {"name": "IC", "type": "Inport", "Port": 3}, FIRST_BLOCKS,
                       {"name": "X", "type": "UnitDelay", "InitialCondition": 0,
                        "SampleTime": "tsamp"},
                       {"name": "Load", "type": "Logic", "Operator": "OR", "Inputs": 2},
                       {"name": "Init", "type": "Switch", "Criteria": "u2 ~= 0"},
                       {"name": "y", "type": "Outport", "Port": 1}],
            "lines": [FIRST_LINES, {"src": "u:1", "dst": "X:1"},
                      {"src": "R:1", "dst": "Load:1"}, {"src": "First:1", "dst": "Load:2"},
                      {"src": "IC:1", "dst": "Init:1"}, {"src": "Load:1", "dst": "Init:2"},
                      {"src": "X:1", "dst": "Init:3"}, {"src": "Init:1", "dst": "y:1"}]})},
    /* y = first ? IC : x, x(n+1) = E ? u : y */
    {UDLIB "Unit Delay Enabled External IC", NULL,
     JSONX({"defaults": {"tsamp": "-1"},
            "blocks": [{"name": "u", "type": "Inport", "Port": 1},
                       {"name": "E", "type": "Inport", "Port": 2},
                       {"name": "IC", "type": "Inport", "Port": 3}, FIRST_BLOCKS,
                       {"name": "X", "type": "UnitDelay", "InitialCondition": 0,
                        "SampleTime": "tsamp"},
                       {"name": "Init", "type": "Switch", "Criteria": "u2 ~= 0"},
                       {"name": "Hold", "type": "Switch", "Criteria": "u2 ~= 0"},
                       {"name": "y", "type": "Outport", "Port": 1}],
            "lines": [FIRST_LINES, {"src": "IC:1", "dst": "Init:1"},
                      {"src": "First:1", "dst": "Init:2"}, {"src": "X:1", "dst": "Init:3"},
                      {"src": "Init:1", "dst": ["y:1", "Hold:3"]}, {"src": "u:1", "dst": "Hold:1"},
                      {"src": "E:1", "dst": "Hold:2"}, {"src": "Hold:1", "dst": "X:1"}]})},
    /* y = R ? vinit : x, x(n+1) = E ? u : y */
    {UDLIB "Unit Delay Enabled Resettable", NULL,
     JSON({"defaults": {"vinit": "0.0", "tsamp": "-1"},
           "blocks": [{"name": "u", "type": "Inport", "Port": 1},
                      {"name": "E", "type": "Inport", "Port": 2},
                      {"name": "R", "type": "Inport", "Port": 3},
                      {"name": "X", "type": "UnitDelay", "InitialCondition": "vinit",
                       "SampleTime": "tsamp"},
                      {"name": "Init", "type": "Constant", "Value": "vinit"},
                      {"name": "Reset", "type": "Switch", "Criteria": "u2 ~= 0"},
                      {"name": "Hold", "type": "Switch", "Criteria": "u2 ~= 0"},
                      {"name": "y", "type": "Outport", "Port": 1}],
           "lines": [{"src": "Init:1", "dst": "Reset:1"}, {"src": "R:1", "dst": "Reset:2"},
                     {"src": "X:1", "dst": "Reset:3"}, {"src": "Reset:1", "dst": ["y:1", "Hold:3"]},
                     {"src": "u:1", "dst": "Hold:1"}, {"src": "E:1", "dst": "Hold:2"},
                     {"src": "Hold:1", "dst": "X:1"}]})},
    /* y = (R or first) ? IC : x, x(n+1) = E ? u : y */
    {UDLIB "Unit Delay Enabled Resettable External IC", NULL,
     JSONX({"defaults": {"tsamp": "-1"},
            "blocks": [{"name": "u", "type": "Inport", "Port": 1},
                       {"name": "E", "type": "Inport", "Port": 2},
                       {"name": "R", "type": "Inport", "Port": 3},
                       {"name": "IC", "type": "Inport", "Port": 4}, FIRST_BLOCKS,
                       {"name": "X", "type": "UnitDelay", "InitialCondition": 0,
                        "SampleTime": "tsamp"},
                       {"name": "Load", "type": "Logic", "Operator": "OR", "Inputs": 2},
                       {"name": "Init", "type": "Switch", "Criteria": "u2 ~= 0"},
                       {"name": "Hold", "type": "Switch", "Criteria": "u2 ~= 0"},
                       {"name": "y", "type": "Outport", "Port": 1}],
            "lines": [FIRST_LINES, {"src": "R:1", "dst": "Load:1"},
                      {"src": "First:1", "dst": "Load:2"}, {"src": "IC:1", "dst": "Init:1"},
                      {"src": "Load:1", "dst": "Init:2"}, {"src": "X:1", "dst": "Init:3"},
                      {"src": "Init:1", "dst": ["y:1", "Hold:3"]}, {"src": "u:1", "dst": "Hold:1"},
                      {"src": "E:1", "dst": "Hold:2"}, {"src": "Hold:1", "dst": "X:1"}]})},
    /* y1 = R ? vinit : u, y2 = x, x(n+1) = y1 */
    {UDLIB "Unit Delay With Preview Resettable", NULL,
     JSONX({"defaults": {"vinit": "0.0", "tsamp": "-1"},
            "blocks": [{"name": "u", "type": "Inport", "Port": 1},
                       {"name": "R", "type": "Inport", "Port": 2},
                       {"name": "Init", "type": "Constant", "Value": "vinit"}, PREVIEW_BLOCKS],
            "lines": [{"src": "Init:1", "dst": "Reset:1"}, PREVIEW_LINES]})},
    /* y1 = R ? RV : u, y2 = x, x(n+1) = y1 */
    {UDLIB "Unit Delay With Preview Resettable External RV", NULL,
     JSONX({"defaults": {"vinit": "0.0", "tsamp": "-1"},
            "blocks": [{"name": "u", "type": "Inport", "Port": 1},
                       {"name": "R", "type": "Inport", "Port": 2},
                       {"name": "RV", "type": "Inport", "Port": 3}, PREVIEW_BLOCKS],
            "lines": [{"src": "RV:1", "dst": "Reset:1"}, PREVIEW_LINES]})},
    /* signals are doubles: the stored-integer forms step by one too */
    {INCDEC "Increment Real World", NULL, ADD_CONST(1)},
    {INCDEC "Increment Stored Integer", NULL, ADD_CONST(1)},
    {INCDEC "Decrement Real World", NULL, ADD_CONST(-1)},
    {INCDEC "Decrement Stored Integer", NULL, ADD_CONST(-1)},
    /* y = max(u - 1, 0) */
    {INCDEC "Decrement To Zero", NULL,
     JSON({"defaults": {},
           "blocks": [{"name": "u", "type": "Inport", "Port": 1},
                      {"name": "Dec", "type": "Bias", "Bias": -1},
                      {"name": "Zero", "type": "Constant", "Value": 0},
                      {"name": "Floor", "type": "MinMax", "Function": "max", "Inputs": 2},
                      {"name": "y", "type": "Outport", "Port": 1}],
           "lines": [{"src": "u:1", "dst": "Dec:1"}, {"src": "Dec:1", "dst": "Floor:1"},
                     {"src": "Zero:1", "dst": "Floor:2"}, {"src": "Floor:1", "dst": "y:1"}]})},
    /* y = max(u - T, 0), T the input's sample time */
    {INCDEC "Decrement Time To Zero", NULL,
     JSONX({"defaults": {},
            "blocks": [{"name": "u", "type": "Inport", "Port": 1}, TS_BLOCKS,
                       {"name": "Dec", "type": "Sum", "Inputs": "+-"},
                       {"name": "Zero", "type": "Constant", "Value": 0},
                       {"name": "Floor", "type": "MinMax", "Function": "max", "Inputs": 2},
                       {"name": "y", "type": "Outport", "Port": 1}],
            "lines": [{"src": "u:1", "dst": ["Ts_not:1", "Ts_zero:1", "Dec:1"]}, TS_LINES,
                      {"src": "Ts:1", "dst": "Dec:2"}, {"src": "Dec:1", "dst": "Floor:1"},
                      {"src": "Zero:1", "dst": "Floor:2"}, {"src": "Floor:1", "dst": "y:1"}]})},
    /* y = R ? vinit : f(u, y(n-1)), y(-1) = vinit, f = min or max */
    {"simulink/Math Operations/MinMax Running Resettable", NULL,
     JSON({"defaults": {"Function": "min", "vinit": "0.0"},
           "blocks": [{"name": "u", "type": "Inport", "Port": 1},
                      {"name": "R", "type": "Inport", "Port": 2},
                      {"name": "Prev", "type": "UnitDelay", "InitialCondition": "vinit",
                       "SampleTime": -1},
                      {"name": "Running", "type": "MinMax", "Function": "$Function", "Inputs": 2},
                      {"name": "Init", "type": "Constant", "Value": "vinit"},
                      {"name": "Reset", "type": "Switch", "Criteria": "u2 ~= 0"},
                      {"name": "y", "type": "Outport", "Port": 1}],
           "lines": [{"src": "u:1", "dst": "Running:1"}, {"src": "Prev:1", "dst": "Running:2"},
                     {"src": "Init:1", "dst": "Reset:1"}, {"src": "R:1", "dst": "Reset:2"},
                     {"src": "Running:1", "dst": "Reset:3"},
                     {"src": "Reset:1", "dst": ["y:1", "Prev:1"]}]})},
    /* the lookup-table approximations computed exactly */
    {"simulink/Lookup Tables/Sine", "Formula=sin(2*pi*u)*", SINCOS("sin")},
    {"simulink/Lookup Tables/Sine", "Formula=cos(2*pi*u)", SINCOS("cos")},
    {"simulink/Lookup Tables/Cosine", "Formula=cos(2*pi*u)*", SINCOS("cos")},
    {"simulink/Lookup Tables/Cosine", "Formula=sin(2*pi*u)", SINCOS("sin")},
    /* in simulation the Sim input passes */
    {"simulink/Signal Routing/Environment Controller", NULL,
     JSON({"defaults": {},
           "blocks": [{"name": "Sim", "type": "Inport", "Port": 1},
                      {"name": "Coder", "type": "Inport", "Port": 2},
                      {"name": "Unused", "type": "Terminator"},
                      {"name": "y", "type": "Outport", "Port": 1}],
           "lines": [{"src": "Sim:1", "dst": "y:1"}, {"src": "Coder:1", "dst": "Unused:1"}]})},
    /* y = sin(2 pi (f1 t + (f2 - f1) t^2/(2 T))): frequency f1 + (f2 - f1) t/T */
    {"simulink/Sources/Chirp Signal", NULL,
     JSON({"defaults": {"f1": "0.1", "T": "100", "f2": "1"},
           "blocks": [{"name": "t", "type": "Clock"},
                      {"name": "Lin", "type": "Gain", "Gain": "2*pi*f1"},
                      {"name": "Sq", "type": "Math", "Operator": "square"},
                      {"name": "Quad", "type": "Gain", "Gain": "pi*(f2-f1)./T"},
                      {"name": "Phase", "type": "Sum", "Inputs": "++"},
                      {"name": "Sin", "type": "Trigonometry", "Operator": "sin"},
                      {"name": "y", "type": "Outport", "Port": 1}],
           "lines": [{"src": "t:1", "dst": ["Lin:1", "Sq:1"]}, {"src": "Sq:1", "dst": "Quad:1"},
                     {"src": "Lin:1", "dst": "Phase:1"}, {"src": "Quad:1", "dst": "Phase:2"},
                     {"src": "Phase:1", "dst": "Sin:1"}, {"src": "Sin:1", "dst": "y:1"}]})},
    /* y = x, x(n+1) = (x + 1 >= 2^NumBits) ? 0 : x + 1 */
    {"simulink/Sources/Counter Free-Running", NULL,
     JSONX({"defaults": {"NumBits": "16", "tsamp": "-1"},
            "blocks": [COUNTER_BLOCKS("u2 >= Threshold", "2^NumBits"),
                       {"name": "y", "type": "Outport", "Port": 1}],
            "lines": [{"src": "X:1", "dst": ["Inc:1", "y:1"]}, COUNTER_LINES]})},
    /* y = x, x(n+1) = (x + 1 > uplimit) ? 0 : x + 1 */
    {"simulink/Sources/Counter Limited", NULL,
     JSONX({"defaults": {"uplimit": "7", "tsamp": "-1"},
            "blocks": [COUNTER_BLOCKS("u2 > Threshold", "uplimit"),
                       {"name": "y", "type": "Outport", "Port": 1}],
            "lines": [{"src": "X:1", "dst": ["Inc:1", "y:1"]}, COUNTER_LINES]})},
    /* y(k) = OutValues(mod(k, N) + 1): a Counter Limited indexing the values */
    {"simulink/Sources/Repeating Sequence Stair", NULL,
     JSONX({"defaults": {"OutValues": "[3 1 4 2 1].'", "tsamp": "-1"},
            "blocks": [COUNTER_BLOCKS("u2 > Threshold", "numel(OutValues)-1"),
                       {"name": "Values", "type": "Constant", "Value": "OutValues"},
                       {"name": "Pick", "type": "MultiPortSwitch", "Inputs": 1,
                        "DataPortOrder": "Zero-based contiguous"},
                       {"name": "y", "type": "Outport", "Port": 1}],
            "lines": [{"src": "X:1", "dst": ["Inc:1", "Pick:1"]}, COUNTER_LINES,
                      {"src": "Values:1", "dst": "Pick:2"}, {"src": "Pick:1", "dst": "y:1"}]})},
    /* y(k) = interp1(TimeValues, OutValues, mod(k tsamp, TimeValues(end))),
     * held at the ends */
    {"simulink/Sources/Repeating Sequence Interpolated", "LookUpMeth=Interpolation-Use End Values*",
     JSON({"defaults": {"OutValues": "[3 1 4 2 1].'", "TimeValues": "[0 0.1 0.5 0.6 1].'",
                        "tsamp": "0.01"},
           "blocks": [{"name": "t", "type": "DigitalClock", "SampleTime": "tsamp"},
                      {"name": "Periods", "type": "Gain", "Gain": "1/TimeValues(end)"},
                      {"name": "Whole", "type": "Rounding", "Operator": "floor"},
                      {"name": "Back", "type": "Gain", "Gain": "TimeValues(end)"},
                      {"name": "Phase", "type": "Sum", "Inputs": "+-"},
                      {"name": "Table", "type": "Lookup1D", "BreakpointsForDimension1": "TimeValues",
                       "Table": "OutValues", "ExtrapMethod": "Clip"},
                      {"name": "y", "type": "Outport", "Port": 1}],
           "lines": [{"src": "t:1", "dst": ["Periods:1", "Phase:1"]},
                     {"src": "Periods:1", "dst": "Whole:1"}, {"src": "Whole:1", "dst": "Back:1"},
                     {"src": "Back:1", "dst": "Phase:2"}, {"src": "Phase:1", "dst": "Table:1"},
                     {"src": "Table:1", "dst": "y:1"}]})},
    /* assertions: only check, so sinks here */
    {VERIF "Check Static Lower Bound", NULL, SINK(1)},
    {VERIF "Check Static Upper Bound", NULL, SINK(1)},
    {VERIF "Check Static Range", NULL, SINK(1)},
    {VERIF "Check Static Gap", NULL, SINK(1)},
    {VERIF "Check Discrete Gradient", NULL, SINK(1)},
    {VERIF "Check Input Resolution", NULL, SINK(1)},
    {VERIF "Check Dynamic Lower Bound", NULL, SINK(2)},
    {VERIF "Check Dynamic Upper Bound", NULL, SINK(2)},
    {VERIF "Check Dynamic Range", NULL, SINK(3)},
    {VERIF "Check Dynamic Gap", NULL, SINK(3)},
    /* y = 9/5 u + 32 and back */
    {"Celsius to Fahrenheit", NULL,
     JSON({"defaults": {},
           "blocks": [{"name": "C", "type": "Inport", "Port": 1},
                      {"name": "Gain", "type": "Gain", "Gain": "9/5"},
                      {"name": "Bias", "type": "Bias", "Bias": 32},
                      {"name": "F", "type": "Outport", "Port": 1}],
           "lines": [{"src": "C:1", "dst": "Gain:1"}, {"src": "Gain:1", "dst": "Bias:1"},
                     {"src": "Bias:1", "dst": "F:1"}]})},
    {"Fahrenheit to Celsius", NULL,
     JSON({"defaults": {},
           "blocks": [{"name": "F", "type": "Inport", "Port": 1},
                      {"name": "Bias", "type": "Bias", "Bias": -32},
                      {"name": "Gain", "type": "Gain", "Gain": "5/9"},
                      {"name": "C", "type": "Outport", "Port": 1}],
           "lines": [{"src": "F:1", "dst": "Bias:1"}, {"src": "Bias:1", "dst": "Gain:1"},
                     {"src": "Gain:1", "dst": "C:1"}]})},
    /* The ideal N-bit converter of Simulink Extras: the code of u on 2^N levels
     * over [Vmin, Vmax], floor((u - Vmin) 2^N / (Vmax - Vmin)), held in
     * [0, 2^N - 1] (OutputNegativeValues off) */
    {"simulink_extras/Additional Discrete/Idealized ADC quantizer", NULL,
     JSON({"defaults": {"NumberOfConverterBits": "12", "Vmin": "0", "Vmax": "5"},
           "blocks": [{"name": "V", "type": "Inport", "Port": 1},
                      {"name": "Offset", "type": "Bias", "Bias": "-Vmin"},
                      {"name": "Scale", "type": "Gain",
                       "Gain": "2^NumberOfConverterBits/(Vmax-Vmin)"},
                      {"name": "Code", "type": "Rounding", "Operator": "floor"},
                      {"name": "Range", "type": "Saturation",
                       "UpperLimit": "2^NumberOfConverterBits-1", "LowerLimit": 0},
                      {"name": "bits", "type": "Outport", "Port": 1}],
           "lines": [{"src": "V:1", "dst": "Offset:1"}, {"src": "Offset:1", "dst": "Scale:1"},
                     {"src": "Scale:1", "dst": "Code:1"}, {"src": "Code:1", "dst": "Range:1"},
                     {"src": "Range:1", "dst": "bits:1"}]})},
    /* BlockTypes that are diagrams (blocks[] rows flagged JG__SLB_TEMPLATE);
     * their parameters also come from the file's BlockParameterDefaults */
    /* Dot Product: y = sum(u1 .* u2) (real signals: no conjugate) */
    {"BlockType:DotProduct", NULL,
     JSON({"defaults": {"SampleTime": "-1"},
           "blocks": [{"name": "u1", "type": "Inport", "Port": 1},
                      {"name": "u2", "type": "Inport", "Port": 2},
                      {"name": "Mul", "type": "Product", "Inputs": 2,
                       "Multiplication": "Element-wise(.*)", "SampleTime": "SampleTime"},
                      {"name": "Add", "type": "Sum", "Inputs": "+"},
                      {"name": "y", "type": "Outport", "Port": 1}],
           "lines": [{"src": "u1:1", "dst": "Mul:1"}, {"src": "u2:1", "dst": "Mul:2"},
                     {"src": "Mul:1", "dst": "Add:1"}, {"src": "Add:1", "dst": "y:1"}]})},
    /* sw (set_param) or CurrentSetting (saved): "1" the first input, "0" the second */
    {"BlockType:ManualSwitch", "sw=0", PASS("u2:1", "u1:1")},
    {"BlockType:ManualSwitch", "sw=1", PASS("u1:1", "u2:1")},
    {"BlockType:ManualSwitch", "sw=*;CurrentSetting=0", PASS("u2:1", "u1:1")},
    {"BlockType:ManualSwitch", "sw=*;CurrentSetting=1*", PASS("u1:1", "u2:1")},
    /* checks and logging only: sinks (To File writes nothing) */
    {"BlockType:Assertion", NULL, SINK(1)},
    {"BlockType:ToFile", NULL, SINK(1)},
    {"BlockType:DataTypeDuplicate", "NumInputPorts=1", SINK(1)},
    {"BlockType:DataTypeDuplicate", "NumInputPorts=2*", SINK(2)},
    {"BlockType:DataTypeDuplicate", "NumInputPorts=3", SINK(3)},
    {"BlockType:DataTypeDuplicate", "NumInputPorts=4", SINK(4)},
};

/* Library blocks known and refused, with the reason; also the fallback of a
 * templated block whose instance no variant fits. */
static const struct {
    const char *src, *reason;
} refused[] = {
    {LOGIC "Bit Set", "bit operations on integer types are not supported (signals are double)"},
    {LOGIC "Bit Clear", "bit operations on integer types are not supported (signals are double)"},
    {LOGIC "Bitwise Operator",
     "bit operations on integer types are not supported (signals are double)"},
    {LOGIC "Extract Bits", "bit operations on integer types are not supported (signals are double)"},
    {LOGIC "Interval Test", "IntervalClosedRight/IntervalClosedLeft must be 'on' or 'off'"},
    {LOGIC "Interval Test Dynamic", "IntervalClosedRight/IntervalClosedLeft must be 'on' or 'off'"},
    {"simulink/Signal Attributes/Data Type Conversion Inherited",
     "data types are not propagated (signals are double): the conversion to the reference "
     "input's type cannot be known"},
    {"simulink/Signal Attributes/Data Type Propagation",
     "data type propagation is not supported (signals are double)"},
    {"simulink/Signal Attributes/Data Type Propagation Examples",
     "a library of data type propagation examples (data types are not supported)"},
    {"simulink/Signal Attributes/Data Type Scaling Strip",
     "fixed-point scaling is not supported (signals are double)"},
    {"simulink/Discontinuities/Rate Limiter Dynamic",
     "rate limits from input signals are not supported"},
    {"simulink/Discrete/First-Order Hold",
     "the first-order hold's extrapolation (its start and its lack of feedthrough) is not "
     "reproduced"},
    {"simulink/Discrete/Tapped Delay", "DelayOrder must be 'Oldest' or 'Newest' and "
     "includeCurrent 'on' or 'off'"},
    {UDLIB "Transfer Fcn Direct Form II Time Varying",
     "coefficients from input signals (a time-varying transfer function) are not supported"},
    {UDLIB "Unit Delay With Preview Enabled",
     "the outputs held while disabled (enabled-subsystem semantics) are not supported"},
    {UDLIB "Unit Delay With Preview Enabled Resettable",
     "the outputs held while disabled (enabled-subsystem semantics) are not supported"},
    {UDLIB "Unit Delay With Preview Enabled Resettable External RV",
     "the outputs held while disabled (enabled-subsystem semantics) are not supported"},
    {"simulink/Lookup Tables/Lookup Table Dynamic", "lookup tables from input signals are not supported"},
    {"simulink/Lookup Tables/Sine", "only the Formulas sin(2*pi*u) and cos(2*pi*u) are supported"},
    {"simulink/Lookup Tables/Cosine", "only the Formulas sin(2*pi*u) and cos(2*pi*u) are supported"},
    {"simulink_need_slupdate/PreLookup Index Search",
     "PreLookup (index and fraction outputs) is not supported"},
    {"simulink_need_slupdate/Interpolation (n-D) using PreLookup",
     "interpolation from PreLookup index and fraction inputs is not supported"},
    {"simulink/Sources/Repeating Sequence Interpolated",
     "only LookUpMeth 'Interpolation-Use End Values' is supported"},
    {"simulink/Model-Wide Utilities/Timed-Based Linearization",
     "an analysis block that linearizes during a Simulink run (use jacgraph linearize)"},
    {"simulink/Model-Wide Utilities/Trigger-Based Linearization",
     "an analysis block that linearizes during a Simulink run (use jacgraph linearize)"},
    {"simulink/User-Defined Functions/S-Function Examples",
     "a library of S-Function examples (S-Functions are not supported)"},    {"BlockType:ManualSwitch", "the switch position (sw, CurrentSetting) must be 0 or 1"},
    {"BlockType:DataTypeDuplicate", "NumInputPorts must be 1 to 4"},
};

/* Settings of natively supported BlockTypes that the jacgraph block lacks:
 * an instance must fit `when` (as in templates[]: literal values, "*" also
 * matching an absent one), else it is refused with the reason. */
static const struct {
    const char *type, *when, *reason;
} required[] = {
    {"Delay", "DelayLengthSource=Dialog*",
     "a delay length from an input port is not supported (DelayLengthSource)"},
    {"Delay", "InitialConditionSource=Dialog*",
     "an initial condition from an input port is not supported (InitialConditionSource)"},
    {"Delay", "ExternalReset=None*", "an external reset is not supported (ExternalReset)"},
    {"Delay", "ShowEnablePort=off*", "an enable port is not supported (ShowEnablePort)"},
    {"Assignment", "NumberOfDimensions=1*", "only 1-D assignment is supported (NumberOfDimensions)"},
    {"Assignment", "IndexOptions=Index vector (dialog)*",
     "only indices given as a dialog index vector are supported (IndexOptions)"},
    {"Assignment", "OutputInitialize=Initialize using input port <Y0>*",
     "only an output initialized from the Y0 input is supported (OutputInitialize)"},
};

static const struct {
    const char *type, *reason;
} unsupported[] = {
    {"S-Function", "S-Functions are compiled code jacgraph cannot run (substitute it: --substitute)"},
    {"M-S-Function", "MATLAB S-Functions need MATLAB (substitute it: --substitute)"},
    {"MATLABFcn", "Interpreted MATLAB Function blocks need MATLAB"},
    {"EnablePort", "enabled subsystems are not supported"},
    {"TriggerPort", "triggered subsystems are not supported"},
    {"ActionPort", "action (if/switch-case) subsystems are not supported"},
    {"ResetPort", "resettable subsystems are not supported"},
    {"ForIterator", "iterator subsystems are not supported"},
    {"WhileIterator", "iterator subsystems are not supported"},
    {"ForEach", "for-each subsystems are not supported"},
    {"FromFile", "From File reads a MAT-file (not supported)"},
    {"FromWorkspace", "From Workspace needs MATLAB timeseries data (not supported)"},
    {"DataStoreMemory", "data stores are not supported"},
    {"DataStoreRead", "data stores are not supported"},
    {"DataStoreWrite", "data stores are not supported"},
    {"VariableTransportDelay", "variable transport delays are not supported"},
    {"RateTransition", "rate transitions are not supported"},
    {"ComplexToMagnitudeAngle", "complex signals are not supported: signals are real"},
    {"ComplexToRealImag", "complex signals are not supported: signals are real"},
    {"MagnitudeAngleToComplex", "complex signals are not supported: signals are real"},
    {"RealImagToComplex", "complex signals are not supported: signals are real"},
    {"ArithShift", "bit shifts on integer types are not supported"},
    {"BusAssignment", "bus assignment is not supported (virtual buses only)"},
};

static int sl_eq(const char *a, const char *b)
{
    /* compare with runs of white space (newlines in library paths) as one blank */
    for (;;) {
        int wa = 0, wb = 0;
        while (*a == ' ' || *a == '\n' || *a == '\t' || *a == '\r') a++, wa = 1;
        while (*b == ' ' || *b == '\n' || *b == '\t' || *b == '\r') b++, wb = 1;
        if (!*a || !*b) return !*a && !*b;
        if (wa != wb || *a != *b) return 0;
        a++, b++;
    }
}

/* The last element of a library path: "a/b/Celsius to Fahrenheit" -> the name. */
static const char *last_elem(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

const jg__sl_bmap_t *jg__sl_block_find(const char *t)
{
    for (size_t k = 0; k < sizeof blocks / sizeof *blocks; k++)
        if (!strcmp(blocks[k].sl, t)) return &blocks[k];
    return NULL;
}

const jg__sl_bmap_t *jg__sl_library_find(const char *src)
{
    for (size_t k = 0; k < sizeof library / sizeof *library; k++)
        if (sl_eq(library[k].sl, src)) return &library[k];
    return NULL;
}

/* Does the instance fit the row's "key=value;key=value*" conditions? */
static int when_fits(const char *when, jg__sl_param_fn get, const void *ctx)
{
    if (!when) return 1;
    for (const char *p = when; *p;) {
        const char *eq = strchr(p, '='), *end = strchr(p, ';');
        if (!end) end = p + strlen(p);
        if (!eq || eq > end) return 0;
        size_t kn = (size_t)(eq - p), vn = (size_t)(end - eq - 1);
        int dflt = vn && eq[vn] == '*';
        if (dflt) vn--;
        char key[64];
        if (kn >= sizeof key) return 0;
        memcpy(key, p, kn);
        key[kn] = 0;
        const char *v = get ? get(ctx, key) : NULL;
        if (v ? !(strlen(v) == vn && !strncmp(v, eq + 1, vn)) : !dflt) return 0;
        p = *end ? end + 1 : end;
    }
    return 1;
}

const char *jg__sl_library_template(const char *src, jg__sl_param_fn get, const void *ctx)
{
    for (size_t k = 0; k < sizeof templates / sizeof *templates; k++)
        if ((sl_eq(templates[k].src, src) ||
             (!strchr(templates[k].src, '/') && sl_eq(templates[k].src, last_elem(src)))) &&
            when_fits(templates[k].when, get, ctx))
            return templates[k].tmpl;
    return NULL;
}

const char *jg__sl_library_refused(const char *src)
{
    for (size_t k = 0; k < sizeof refused / sizeof *refused; k++)
        if (sl_eq(refused[k].src, src)) return refused[k].reason;
    return NULL;
}

const char *jg__sl_unsupported_reason(const char *t)
{
    for (size_t k = 0; k < sizeof unsupported / sizeof *unsupported; k++)
        if (!strcmp(unsupported[k].type, t)) return unsupported[k].reason;
    return NULL;
}

const char *jg__sl_block_refused(const char *t, jg__sl_param_fn get, const void *ctx)
{
    for (size_t k = 0; k < sizeof required / sizeof *required; k++)
        if (!strcmp(required[k].type, t) && !when_fits(required[k].when, get, ctx))
            return required[k].reason;
    return NULL;
}

const jg__sl_bmap_t *jg__sl_block_entry(size_t k)
{
    return k < sizeof blocks / sizeof *blocks ? &blocks[k] : NULL;
}

const jg__sl_bmap_t *jg__sl_library_entry(size_t k)
{
    return k < sizeof library / sizeof *library ? &library[k] : NULL;
}
