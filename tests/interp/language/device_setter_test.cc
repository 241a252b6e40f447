// replica_device_setter's choice of ps device, and how the scope stack
// applies it to variables, to other nodes and under colocation.
#include "interp/language/device_setter.h"

#include <gtest/gtest.h>

namespace tfg {
namespace {

std::shared_ptr<ReplicaDeviceSetter> Setter(ReplicaDeviceSetter::Strategy s) {
  auto r = ReplicaDeviceSetter::Make({"/job:ps/task:0", "/job:ps/task:1", "/job:ps/task:2"}, "/job:worker/task:0", s);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return *r;
}

TEST(ReplicaDeviceSetterTest, RoundRobinTakesThePsDevicesInTurn) {
  auto setter = Setter(ReplicaDeviceSetter::Strategy::kRoundRobin);
  std::vector<std::string> got;
  for (int64_t bytes : {400, 4, 4, 4, 4}) got.push_back(setter->PlaceVariable(bytes).ToString());
  EXPECT_EQ(got, (std::vector<std::string>{"/job:ps/task:0", "/job:ps/task:1", "/job:ps/task:2", "/job:ps/task:0",
                                           "/job:ps/task:1"}));
}

TEST(ReplicaDeviceSetterTest, GreedyTakesTheLeastLoadedLowestFirst) {
  auto setter = Setter(ReplicaDeviceSetter::Strategy::kGreedy);
  std::vector<std::string> got;
  // loads after each: [400,0,0] [400,100,0] [400,100,100] [400,150,100] [400,150,400] [400,200,400]
  for (int64_t bytes : {400, 100, 100, 50, 300, 50}) got.push_back(setter->PlaceVariable(bytes).ToString());
  EXPECT_EQ(got, (std::vector<std::string>{"/job:ps/task:0", "/job:ps/task:1", "/job:ps/task:2", "/job:ps/task:1",
                                           "/job:ps/task:2", "/job:ps/task:1"}));
}

TEST(ReplicaDeviceSetterTest, BadArguments) {
  EXPECT_FALSE(ReplicaDeviceSetter::Make({}, "", ReplicaDeviceSetter::Strategy::kRoundRobin).ok());
  EXPECT_FALSE(ReplicaDeviceSetter::Make({"/job:ps/bogus:1"}, "", ReplicaDeviceSetter::Strategy::kRoundRobin).ok());
  EXPECT_FALSE(ReplicaDeviceSetter::ParseStrategy("random").ok());
  EXPECT_TRUE(ReplicaDeviceSetter::ParseStrategy("greedy").ok());
}

TEST(ScopeStackSetterTest, VariablesGoToPsOtherNodesToTheWorker) {
  ScopeStack scopes;
  scopes.PushDevice(*DeviceSpec::Parse("/job:train"), false);  // outside the setter: kept where not overridden
  auto setter = *ReplicaDeviceSetter::Make({"/task:3", "/task:4"}, "/task:0/device:cpu:0",
                                           ReplicaDeviceSetter::Strategy::kRoundRobin);
  scopes.PushDeviceSetter(setter);
  EXPECT_EQ(scopes.device(), "/job:train/task:0/device:cpu:0");
  EXPECT_EQ(scopes.VariableDevice(4), "/job:train/task:3");
  scopes.PushDevice(*DeviceSpec::Parse("/device:cpu:1"), false);  // inside: overrides the ps device's parts
  EXPECT_EQ(scopes.VariableDevice(4), "/job:train/task:4/device:cpu:1");
  scopes.Pop();
  scopes.PushColocate("w");  // slots and updates go with their variable, not to the worker
  EXPECT_EQ(scopes.device(), "/job:train@w");
  EXPECT_EQ(scopes.VariableDevice(4), "/job:train@w");
  scopes.Pop();
  EXPECT_EQ(scopes.VariableDevice(4), "/job:train/task:3");  // colocated variables took no turn
  scopes.Pop();
  EXPECT_EQ(scopes.VariableDevice(4), "/job:train");  // no setter any more
}

// A run without the anchor (init() of a slot variable) still finds the
// anchor's device: the request carries it.
TEST(ScopeStackSetterTest, ColocationCarriesTheAnchorsDevice) {
  ScopeStack scopes;
  auto setter = *ReplicaDeviceSetter::Make({"/job:ps/task:0"}, "/job:worker/task:1",
                                           ReplicaDeviceSetter::Strategy::kRoundRobin);
  scopes.PushDeviceSetter(setter);
  scopes.PushColocate("w", *DeviceSpec::Parse("/job:ps/task:0"));
  EXPECT_EQ(scopes.device(), "/job:ps/task:0@w");
  EXPECT_EQ(scopes.VariableDevice(4), "/job:ps/task:0@w");
  scopes.PushDevice(*DeviceSpec::Parse("/device:cpu:0"), false);  // explicit parts still apply
  EXPECT_EQ(scopes.device(), "/job:ps/task:0/device:cpu:0@w");
}

}  // namespace
}  // namespace tfg
