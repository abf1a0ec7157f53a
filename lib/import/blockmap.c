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
    {"DiscreteTransferFcn", "DiscreteTransferFcn", 0, NULL,
     {P("Numerator", NULL, "[1]"), P("Denominator", NULL, "[1 0.5]"),
      P("InitialStates", NULL, "0")}},
    {"DiscreteFilter", "DiscreteFilter", 0, NULL,
     {P("Numerator", NULL, "[1]"), P("Denominator", NULL, "[1 0.5]"),
      P("InitialStates", NULL, "0")}},
    {"DiscreteStateSpace", "DiscreteStateSpace", 0, "1",
     {P("A", NULL, "1"), P("B", NULL, "1"), P("C", NULL, "1"), P("D", NULL, "1"),
      P("X0", "InitialCondition", "0")}},
    {"DiscreteZeroPole", "DiscreteZeroPole", 0, "1",
     {P("Zeros", NULL, "[1]"), P("Poles", NULL, "[0 1]"), P("Gain", NULL, "[1]")}},
    {"DiscreteIntegrator", "DiscreteIntegrator", JG__SLB_CUSTOM, "1",
     {P("IntegratorMethod", NULL, "Integration: Forward Euler"), P("gainval", NULL, "1.0"),
      P("InitialCondition", NULL, "0"), P("ExternalReset", NULL, "none")}},
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
 * as an operator).  The first line lists the instance parameters with their
 * defaults. */
typedef struct {
    const char *src;
    const char *tmpl;
} sl_template_t;

static const sl_template_t templates[] = {
    {"simulink/Logic and Bit Operations/Compare To Constant",
     "{\"defaults\": {\"relop\": \"<=\", \"const\": \"3.0\"},"
     " \"blocks\": [{\"name\": \"u\", \"type\": \"Inport\", \"Port\": 1},"
     "  {\"name\": \"Constant\", \"type\": \"Constant\", \"Value\": \"const\"},"
     "  {\"name\": \"Compare\", \"type\": \"RelationalOperator\", \"Operator\": \"$relop\"},"
     "  {\"name\": \"y\", \"type\": \"Outport\", \"Port\": 1}],"
     " \"lines\": [{\"src\": \"u:1\", \"dst\": \"Compare:1\"},"
     "  {\"src\": \"Constant:1\", \"dst\": \"Compare:2\"}, {\"src\": \"Compare:1\", \"dst\": \"y:1\"}]}"},
    {"simulink/Logic and Bit Operations/Compare To Zero",
     "{\"defaults\": {\"relop\": \"<=\"},"
     " \"blocks\": [{\"name\": \"u\", \"type\": \"Inport\", \"Port\": 1},"
     "  {\"name\": \"Constant\", \"type\": \"Constant\", \"Value\": 0},"
     "  {\"name\": \"Compare\", \"type\": \"RelationalOperator\", \"Operator\": \"$relop\"},"
     "  {\"name\": \"y\", \"type\": \"Outport\", \"Port\": 1}],"
     " \"lines\": [{\"src\": \"u:1\", \"dst\": \"Compare:1\"},"
     "  {\"src\": \"Constant:1\", \"dst\": \"Compare:2\"}, {\"src\": \"Compare:1\", \"dst\": \"y:1\"}]}"},
    /* y = min(max(u, lo), up) with inputs up, u, lo */
    {"simulink/Discontinuities/Saturation Dynamic",
     "{\"defaults\": {},"
     " \"blocks\": [{\"name\": \"up\", \"type\": \"Inport\", \"Port\": 1},"
     "  {\"name\": \"u\", \"type\": \"Inport\", \"Port\": 2},"
     "  {\"name\": \"lo\", \"type\": \"Inport\", \"Port\": 3},"
     "  {\"name\": \"Max\", \"type\": \"MinMax\", \"Function\": \"max\", \"Inputs\": 2},"
     "  {\"name\": \"Min\", \"type\": \"MinMax\", \"Function\": \"min\", \"Inputs\": 2},"
     "  {\"name\": \"y\", \"type\": \"Outport\", \"Port\": 1}],"
     " \"lines\": [{\"src\": \"u:1\", \"dst\": \"Max:1\"}, {\"src\": \"lo:1\", \"dst\": \"Max:2\"},"
     "  {\"src\": \"Max:1\", \"dst\": \"Min:1\"}, {\"src\": \"up:1\", \"dst\": \"Min:2\"},"
     "  {\"src\": \"Min:1\", \"dst\": \"y:1\"}]}"},
    /* y = u - min(max(u, lo), up) */
    {"simulink/Discontinuities/Dead Zone Dynamic",
     "{\"defaults\": {},"
     " \"blocks\": [{\"name\": \"up\", \"type\": \"Inport\", \"Port\": 1},"
     "  {\"name\": \"u\", \"type\": \"Inport\", \"Port\": 2},"
     "  {\"name\": \"lo\", \"type\": \"Inport\", \"Port\": 3},"
     "  {\"name\": \"Max\", \"type\": \"MinMax\", \"Function\": \"max\", \"Inputs\": 2},"
     "  {\"name\": \"Min\", \"type\": \"MinMax\", \"Function\": \"min\", \"Inputs\": 2},"
     "  {\"name\": \"Sum\", \"type\": \"Sum\", \"Inputs\": \"+-\"},"
     "  {\"name\": \"y\", \"type\": \"Outport\", \"Port\": 1}],"
     " \"lines\": [{\"src\": \"u:1\", \"dst\": [\"Max:1\", \"Sum:1\"]},"
     "  {\"src\": \"lo:1\", \"dst\": \"Max:2\"}, {\"src\": \"Max:1\", \"dst\": \"Min:1\"},"
     "  {\"src\": \"up:1\", \"dst\": \"Min:2\"}, {\"src\": \"Min:1\", \"dst\": \"Sum:2\"},"
     "  {\"src\": \"Sum:1\", \"dst\": \"y:1\"}]}"},
    /* H(z) = (1 - p) z / (z - p) */
    {"simulink/Discrete/Transfer Fcn First Order",
     "{\"defaults\": {\"PoleZ\": \"0.95\"},"
     " \"blocks\": [{\"name\": \"u\", \"type\": \"Inport\", \"Port\": 1},"
     "  {\"name\": \"TF\", \"type\": \"DiscreteTransferFcn\", \"Numerator\": \"[1-PoleZ 0]\","
     "   \"Denominator\": \"[1 -PoleZ]\", \"SampleTime\": -1},"
     "  {\"name\": \"y\", \"type\": \"Outport\", \"Port\": 1}],"
     " \"lines\": [{\"src\": \"u:1\", \"dst\": \"TF:1\"}, {\"src\": \"TF:1\", \"dst\": \"y:1\"}]}"},
    /* H(z) = (1 - p)/(1 - z0) (z - z0)/(z - p) */
    {"simulink/Discrete/Transfer Fcn Lead or Lag",
     "{\"defaults\": {\"PoleZ\": \"0.95\", \"ZeroZ\": \"0.75\"},"
     " \"blocks\": [{\"name\": \"u\", \"type\": \"Inport\", \"Port\": 1},"
     "  {\"name\": \"TF\", \"type\": \"DiscreteTransferFcn\","
     "   \"Numerator\": \"(1-PoleZ)/(1-ZeroZ)*[1 -ZeroZ]\", \"Denominator\": \"[1 -PoleZ]\","
     "   \"SampleTime\": -1},"
     "  {\"name\": \"y\", \"type\": \"Outport\", \"Port\": 1}],"
     " \"lines\": [{\"src\": \"u:1\", \"dst\": \"TF:1\"}, {\"src\": \"TF:1\", \"dst\": \"y:1\"}]}"},
    /* H(z) = (z - z0) / ((1 - z0) z) */
    {"simulink/Discrete/Transfer Fcn Real Zero",
     "{\"defaults\": {\"ZeroZ\": \"0.75\"},"
     " \"blocks\": [{\"name\": \"u\", \"type\": \"Inport\", \"Port\": 1},"
     "  {\"name\": \"TF\", \"type\": \"DiscreteTransferFcn\","
     "   \"Numerator\": \"[1 -ZeroZ]/(1-ZeroZ)\", \"Denominator\": \"[1 0]\", \"SampleTime\": -1},"
     "  {\"name\": \"y\", \"type\": \"Outport\", \"Port\": 1}],"
     " \"lines\": [{\"src\": \"u:1\", \"dst\": \"TF:1\"}, {\"src\": \"TF:1\", \"dst\": \"y:1\"}]}"},
    /* y(k) = u(k) - u(k-1) */
    {"simulink/Discrete/Difference",
     "{\"defaults\": {\"ICPrevInput\": \"0.0\"},"
     " \"blocks\": [{\"name\": \"u\", \"type\": \"Inport\", \"Port\": 1},"
     "  {\"name\": \"UD\", \"type\": \"UnitDelay\", \"InitialCondition\": \"ICPrevInput\","
     "   \"SampleTime\": -1},"
     "  {\"name\": \"Diff\", \"type\": \"Sum\", \"Inputs\": \"+-\"},"
     "  {\"name\": \"y\", \"type\": \"Outport\", \"Port\": 1}],"
     " \"lines\": [{\"src\": \"u:1\", \"dst\": [\"UD:1\", \"Diff:1\"]},"
     "  {\"src\": \"UD:1\", \"dst\": \"Diff:2\"}, {\"src\": \"Diff:1\", \"dst\": \"y:1\"}]}"},
    /* y = 9/5 u + 32 and back */
    {"Celsius to Fahrenheit",
     "{\"defaults\": {},"
     " \"blocks\": [{\"name\": \"C\", \"type\": \"Inport\", \"Port\": 1},"
     "  {\"name\": \"Gain\", \"type\": \"Gain\", \"Gain\": \"9/5\"},"
     "  {\"name\": \"Bias\", \"type\": \"Bias\", \"Bias\": 32},"
     "  {\"name\": \"F\", \"type\": \"Outport\", \"Port\": 1}],"
     " \"lines\": [{\"src\": \"C:1\", \"dst\": \"Gain:1\"}, {\"src\": \"Gain:1\", \"dst\": \"Bias:1\"},"
     "  {\"src\": \"Bias:1\", \"dst\": \"F:1\"}]}"},
    {"Fahrenheit to Celsius",
     "{\"defaults\": {},"
     " \"blocks\": [{\"name\": \"F\", \"type\": \"Inport\", \"Port\": 1},"
     "  {\"name\": \"Bias\", \"type\": \"Bias\", \"Bias\": -32},"
     "  {\"name\": \"Gain\", \"type\": \"Gain\", \"Gain\": \"5/9\"},"
     "  {\"name\": \"C\", \"type\": \"Outport\", \"Port\": 1}],"
     " \"lines\": [{\"src\": \"F:1\", \"dst\": \"Bias:1\"}, {\"src\": \"Bias:1\", \"dst\": \"Gain:1\"},"
     "  {\"src\": \"Gain:1\", \"dst\": \"C:1\"}]}"},
    /* The ideal N-bit converter of Simulink Extras: the code of u on 2^N levels
     * over [Vmin, Vmax], floor((u - Vmin) 2^N / (Vmax - Vmin)), held in
     * [0, 2^N - 1] (OutputNegativeValues off) */
    {"simulink_extras/Additional Discrete/Idealized ADC quantizer",
     "{\"defaults\": {\"NumberOfConverterBits\": \"12\", \"Vmin\": \"0\", \"Vmax\": \"5\"},"
     " \"blocks\": [{\"name\": \"V\", \"type\": \"Inport\", \"Port\": 1},"
     "  {\"name\": \"Offset\", \"type\": \"Bias\", \"Bias\": \"-Vmin\"},"
     "  {\"name\": \"Scale\", \"type\": \"Gain\","
     "   \"Gain\": \"2^NumberOfConverterBits/(Vmax-Vmin)\"},"
     "  {\"name\": \"Code\", \"type\": \"Rounding\", \"Operator\": \"floor\"},"
     "  {\"name\": \"Range\", \"type\": \"Saturation\", \"UpperLimit\": \"2^NumberOfConverterBits-1\","
     "   \"LowerLimit\": 0},"
     "  {\"name\": \"bits\", \"type\": \"Outport\", \"Port\": 1}],"
     " \"lines\": [{\"src\": \"V:1\", \"dst\": \"Offset:1\"}, {\"src\": \"Offset:1\", \"dst\": \"Scale:1\"},"
     "  {\"src\": \"Scale:1\", \"dst\": \"Code:1\"}, {\"src\": \"Code:1\", \"dst\": \"Range:1\"},"
     "  {\"src\": \"Range:1\", \"dst\": \"bits:1\"}]}"},
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

const char *jg__sl_library_template(const char *src)
{
    for (size_t k = 0; k < sizeof templates / sizeof *templates; k++)
        if (sl_eq(templates[k].src, src) ||
            (!strchr(templates[k].src, '/') && sl_eq(templates[k].src, last_elem(src))))
            return templates[k].tmpl;
    return NULL;
}

const char *jg__sl_unsupported_reason(const char *t)
{
    for (size_t k = 0; k < sizeof unsupported / sizeof *unsupported; k++)
        if (!strcmp(unsupported[k].type, t)) return unsupported[k].reason;
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
